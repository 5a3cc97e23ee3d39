// An upstream calendar server on loopback for the calendar tests: each path serves what the test
// sets (status, body, content type), and every request is counted.
import { createServer, type Server } from 'node:http';

export interface Feed {
  status: number;
  body: string;
  contentType: string;
}

export interface Upstream {
  /** The address of `path` (e.g. '/work.ics'). */
  url(path: string): string;
  set(path: string, feed: Partial<Feed> & { body: string }): void;
  hits(path: string): number;
  close(): Promise<void>;
}

export async function startUpstream(): Promise<Upstream> {
  const feeds = new Map<string, Feed>();
  const counts = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const feed = feeds.get(path);
    if (!feed) {
      response.writeHead(404, { 'Content-Type': 'text/plain' });
      response.end('no such feed');
      return;
    }
    response.writeHead(feed.status, { 'Content-Type': feed.contentType, 'Cache-Control': 'no-store' });
    response.end(feed.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    set(path, feed) {
      feeds.set(path, { status: 200, contentType: 'text/calendar; charset=utf-8', ...feed });
    },
    hits: (path) => counts.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const ics = (lines: string[]) => `${lines.join('\r\n')}\r\n`;

/** Three events with a parameter (CN), an escaped comma, a multi-line description and a room. */
export const WORK_FEED = ics([
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Hearth tests//EN',
  'X-WR-CALNAME:Work',
  'BEGIN:VEVENT',
  'UID:one@hearth.test',
  'DTSTAMP:20250101T000000Z',
  'DTSTART:20250102T100000Z',
  'DTEND:20250102T110000Z',
  'SUMMARY:Team Meeting - Room 101',
  'LOCATION:Building A\\, Room 101',
  'DESCRIPTION:Weekly sync\\nAgenda: roadmap',
  'ORGANIZER;CN=Ada Lovelace:mailto:ada@example.com',
  'END:VEVENT',
  'BEGIN:VEVENT',
  'UID:two@hearth.test',
  'DTSTAMP:20250101T000000Z',
  'DTSTART:20250103T120000Z',
  'DTEND:20250103T130000Z',
  'SUMMARY:Lunch at the Cafe',
  'LOCATION:Cafe Central',
  'END:VEVENT',
  'BEGIN:VEVENT',
  'UID:three@hearth.test',
  'DTSTAMP:20250101T000000Z',
  'DTSTART:20250104T090000Z',
  'DTEND:20250104T093000Z',
  'SUMMARY:Review - Room 7',
  'LOCATION:Building B',
  'END:VEVENT',
  'END:VCALENDAR',
]);

/** `count` events named 'Event 1'..'Event {count}'. */
export function numberedFeed(count: number, padding = 0): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Hearth tests//EN'];
  for (let i = 1; i <= count; i += 1) {
    lines.push(
      'BEGIN:VEVENT',
      `UID:event-${i}@hearth.test`,
      'DTSTAMP:20250101T000000Z',
      `DTSTART:20250201T${String(i % 24).padStart(2, '0')}0000Z`,
      `SUMMARY:Event ${i}`,
    );
    if (padding > 0) lines.push(`DESCRIPTION:${'x'.repeat(padding)}`);
    lines.push('END:VEVENT');
  }
  lines.push('END:VCALENDAR');
  return ics(lines);
}

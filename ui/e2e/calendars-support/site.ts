// A suite's site for the calendar tool: the real hearth server, allowed to read loopback feeds,
// and an upstream ICS server on loopback with the suite's feeds, started before its tests and
// stopped after them.
import { afterAll, beforeAll } from 'vitest';
import { startServer, type RunningServer } from '../support/server';
import { startUpstream, type Feed, type Upstream } from './upstream';

export interface CalendarSite {
  /** An address on the hearth server. */
  url: (path?: string) => string;
  /** The upstream feed server. */
  up: () => Upstream;
}

/** `feeds` by path on the upstream; `args` are more `hearth serve` flags. */
export function useCalendarSite(feeds: Record<string, Partial<Feed> & { body: string }>, args: string[] = []): CalendarSite {
  let server: RunningServer | undefined;
  let upstream: Upstream | undefined;
  beforeAll(async () => {
    upstream = await startUpstream();
    for (const [path, feed] of Object.entries(feeds)) upstream.set(path, feed);
    server = await startServer(['--allow-private-feeds', ...args]);
  });
  afterAll(async () => {
    await server?.stop();
    await upstream?.close();
  });
  return {
    url: (path = '') => {
      if (!server) throw new Error('server not started');
      return `${server.url}${path}`;
    },
    up: () => {
      if (!upstream) throw new Error('upstream not started');
      return upstream;
    },
  };
}

// Merged calendars (calendar tool v3) in Chromium against the real binary, with an upstream ICS
// server on loopback: a calendar of several feeds edited in the editor's header (add, label,
// prefix, remove, at most ten), each sample tagged with its feed, a failing feed said at that
// feed while the others' events still show, Build & Host of the merged calendar and its hosted
// feed, a calendar of one feed sent and stored exactly as before, and axe on the editor with two
// feeds, light and dark, on a phone and a desktop.
import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page, Request } from 'playwright-core';
import { axe, describeViolations } from './support/axe';
import { useBrowser } from './support/browser';
import { DialogScript } from './calendars-support/dialogs';
import { useCalendarSite } from './calendars-support/site';
import { WORK_FEED } from './calendars-support/upstream';

const ics = (lines: string[]) => `${lines.join('\r\n')}\r\n`;

/** Two events, with UIDs of their own (none shared with WORK_FEED). */
const HOME_FEED = ics([
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Hearth tests//EN',
  'X-WR-CALNAME:Home',
  'BEGIN:VEVENT',
  'UID:piano@home.test',
  'DTSTAMP:20250101T000000Z',
  'DTSTART:20250105T170000Z',
  'DTEND:20250105T180000Z',
  'SUMMARY:Piano lesson',
  'END:VEVENT',
  'BEGIN:VEVENT',
  'UID:dinner@home.test',
  'DTSTAMP:20250101T000000Z',
  'DTSTART:20250106T190000Z',
  'DTEND:20250106T210000Z',
  'SUMMARY:Dinner with Sam',
  'LOCATION:Trattoria',
  'END:VEVENT',
  'END:VCALENDAR',
]);

/** One event. */
const EXTRA_FEED = ics([
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Hearth tests//EN',
  'BEGIN:VEVENT',
  'UID:extra@extra.test',
  'DTSTAMP:20250101T000000Z',
  'DTSTART:20250107T080000Z',
  'SUMMARY:Extra thing',
  'END:VEVENT',
  'END:VCALENDAR',
]);

interface StoredCalendar {
  id: string;
  url: string;
  sources?: { url: string; prefix?: string; label?: string }[];
  hostedUrl?: string;
  editToken?: string;
}

interface SentFeed {
  sources?: { url: string; prefix?: string; label?: string }[];
  url?: string;
}

const DEVICES = [
  { name: 'phone', options: { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true } },
  { name: 'desktop', options: { viewport: { width: 1280, height: 800 } } },
] as const;
const SCHEMES = ['light', 'dark'] as const;

describe('calendars: merged calendars (several feeds)', () => {
  const b = useBrowser();
  const { url, up } = useCalendarSite({
    '/work.ics': { body: WORK_FEED },
    '/home.ics': { body: HOME_FEED },
    '/extra.ics': { body: EXTRA_FEED },
    '/down.ics': { status: 500, body: 'upstream broke' },
  });

  const stored = (page: Page) => page.evaluate(() => JSON.parse(localStorage.getItem('calendars:v1') ?? '[]') as unknown) as Promise<StoredCalendar[]>;
  const editorUrl = (id: string, feedUrl: string, name: string) => url(`/calendars/new?${new URLSearchParams({ id, url: feedUrl, name }).toString()}`);
  const sampleValue = (page: Page, key: string) =>
    page
      .locator('.cal-fields__row')
      .filter({ has: page.locator('dt', { hasText: new RegExp(`^${key}$`) }) })
      .locator('.cal-fields__value');
  const feedItem = (page: Page, n: number) => page.getByRole('listitem', { name: new RegExp(`^Feed ${n}( |$)`) });
  const address = (page: Page, n: number) => page.getByLabel(`Address of feed ${n}`, { exact: true });
  const label = (page: Page, n: number) => page.getByLabel(`Label of feed ${n} (optional)`, { exact: true });
  const prefix = (page: Page, n: number) => page.getByLabel(`Prefix of feed ${n} (optional)`, { exact: true });
  const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '');
  const waitText = async (page: Page, selector: string, expected: string) => {
    try {
      await page.waitForFunction(([s, e]) => document.querySelector(s)?.textContent === e, [selector, expected] as const, { timeout: 10_000 });
    } catch (error) {
      const actual = await page
        .locator(selector)
        .first()
        .textContent({ timeout: 100 })
        .catch(() => '(absent)');
      throw new Error(`${selector}: expected ${JSON.stringify(expected)}, saw ${JSON.stringify(actual)} at ${page.url()}`, { cause: error });
    }
  };
  /** The next merged read of the feed (POST /api/feed), and what it asked for. */
  const nextMergedRead = (page: Page) =>
    page
      .waitForRequest((r: Request) => new URL(r.url()).pathname === '/api/feed' && r.method() === 'POST')
      .then((r) => JSON.parse(r.postData() ?? '{}') as SentFeed);

  /** Every sample of the feed, as [SUMMARY, the name on its feed tag], walking with Next. */
  async function allSamples(page: Page, total: number): Promise<[string, string][]> {
    await waitText(page, '.cal-samples__counter', `1/${total}`);
    const seen: [string, string][] = [];
    for (let i = 1; i <= total; i += 1) {
      await waitText(page, '.cal-samples__counter', `${i}/${total}`);
      const summary = (await sampleValue(page, 'SUMMARY').textContent()) ?? '';
      const tag = (await page.locator('.cal-samples .cal-source-tag__name').textContent()) ?? '';
      seen.push([summary, tag]);
      if (i < total) await page.getByRole('button', { name: 'Next sample' }).click();
    }
    return seen.sort(([a], [c]) => a.localeCompare(c));
  }

  /** Opens a new calendar of the work feed with the home feed added as feed 2 (prefix "[Home] "). */
  async function openTwoFeeds(page: Page, id: string) {
    await page.goto(editorUrl(id, up().url('/work.ics'), 'Two feeds'));
    await waitText(page, '.cal-samples__counter', '1/3');
    await page.getByRole('button', { name: 'Add another feed' }).click();
    // The label and the prefix first, the address last: one read of the merged feed (each read
    // counts against the editor's allowance of feed reads).
    await label(page, 1).fill('Work');
    await prefix(page, 2).fill('[Home] ');
    await address(page, 2).fill(up().url('/home.ics'));
    await address(page, 2).press('Enter');
    await waitText(page, '.cal-samples__counter', '1/5');
  }

  it('adds feeds with prefixes, tags each sample with its feed, removes one, and hosts the merged calendar', async () => {
    const page = b.page;
    const dialogs = new DialogScript(page);
    await page.goto(url('/calendars'));
    dialogs.answer(up().url('/work.ics'), 'Merged');
    await page.getByRole('button', { name: 'Add Calendar' }).click();
    await page.waitForURL(/\/calendars\/new\?/);
    await waitText(page, '.cal-samples__counter', '1/3');
    // One feed: its address as before, no list and no tags.
    await page.locator('.cal-editor__url', { hasText: up().url('/work.ics') }).waitFor();
    await expect(page.locator('.cal-source-tag').count()).resolves.toBe(0);

    // "Add another feed" makes the list, focused on the new feed's address; an empty feed reads nothing.
    const reads: SentFeed[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/api/feed' && r.method() === 'POST') reads.push(JSON.parse(r.postData() ?? '{}') as SentFeed);
    });
    await page.getByRole('button', { name: 'Add another feed' }).click();
    await expect(address(page, 1).inputValue()).resolves.toBe(up().url('/work.ics'));
    await expect(page.evaluate(() => document.activeElement?.getAttribute('type'))).resolves.toBe('url');
    expect(await focusedId(page)).toBe(await address(page, 2).getAttribute('id'));
    await page.getByText('A prefix goes before the title of each event from its feed', { exact: false }).waitFor();

    // Typing reads nothing; leaving the box (or Enter) reads the merged feed.
    await page.keyboard.type(up().url('/home.ics'));
    expect(reads).toEqual([]);
    const first = nextMergedRead(page);
    await page.keyboard.press('Tab');
    await expect(first).resolves.toEqual({ sources: [{ url: up().url('/work.ics') }, { url: up().url('/home.ics') }], limit: 100 });
    await waitText(page, '.cal-samples__counter', '1/5');
    await prefix(page, 2).fill('[Home] ');
    await label(page, 1).fill('Work');
    await prefix(page, 1).fill('[Work] ');
    const last = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/feed' && r.request().method() === 'POST');
    await prefix(page, 1).press('Enter');
    await last;
    await page.waitForFunction(() =>
      [...document.querySelectorAll('.cal-samples .cal-fields__row')].some(
        (row) => row.querySelector('dt')?.textContent === 'SUMMARY' && row.querySelector('dd')?.textContent.startsWith('[Work] '),
      ),
    );
    // Labels change nothing the server does with a feed: they are not sent to read it.
    expect(reads.at(-1)?.sources).toEqual([
      { url: up().url('/work.ics'), prefix: '[Work] ' },
      { url: up().url('/home.ics'), prefix: '[Home] ' },
    ]);
    expect(reads.flatMap((r) => r.sources ?? []).filter((source) => 'label' in source)).toEqual([]);

    // Five events, each tagged with its feed: the label, else the prefix.
    await expect(allSamples(page, 5)).resolves.toEqual([
      ['[Home] Dinner with Sam', '[Home]'],
      ['[Home] Piano lesson', '[Home]'],
      ['[Work] Lunch at the Cafe', 'Work'],
      ['[Work] Review - Room 7', 'Work'],
      ['[Work] Team Meeting - Room 101', 'Work'],
    ]);
    await expect(page.locator('.cal-samples .cal-source-tag').first().textContent()).resolves.toMatch(/^From feed [12], (Work|\[Home\])$/);
    await expect(page.locator('.cal-preview .cal-source-tag__name').textContent()).resolves.toBe(
      (await page.locator('.cal-samples .cal-source-tag__name').textContent()) ?? '',
    );
    await feedItem(page, 1)
      .getByText(/^3 events · /)
      .waitFor();
    await feedItem(page, 2)
      .getByText(/^2 events · /)
      .waitFor();

    // A third feed, then removed: its button names it, and focus goes to the feed now last.
    await page.getByRole('button', { name: 'Add another feed' }).click();
    await address(page, 3).fill(up().url('/extra.ics'));
    await address(page, 3).press('Enter');
    await waitText(page, '.cal-samples__counter', '1/6');
    await feedItem(page, 3)
      .getByText(/^1 event · /)
      .waitFor();
    await page.getByRole('button', { name: 'Remove feed 3 (127.0.0.1', exact: false }).click();
    await waitText(page, '.cal-samples__counter', '1/5');
    await expect(page.getByRole('listitem', { name: /^Feed \d/ }).count()).resolves.toBe(2);
    expect(await focusedId(page)).toBe(await address(page, 2).getAttribute('id'));

    // Build & Host sends the sources (no url) and the hosted feed holds both feeds' events, prefixed.
    const publish = page.waitForRequest((r) => r.url().endsWith('/api/calendars') && r.method() === 'POST');
    await page.getByRole('button', { name: 'Build & Host' }).click();
    const sent = JSON.parse((await publish).postData() ?? '{}') as SentFeed & { name?: string };
    expect(sent.url).toBeUndefined();
    expect(sent.sources).toEqual([
      { url: up().url('/work.ics'), prefix: '[Work] ', label: 'Work' },
      { url: up().url('/home.ics'), prefix: '[Home] ' },
    ]);
    const banner = page.getByRole('region', { name: 'Hosted feed' });
    await banner.waitFor();
    await banner.getByText('The live feed matches this editor.').waitFor();
    const [calendar] = await stored(page);
    expect(calendar?.url).toBe(up().url('/work.ics'));
    expect(calendar?.sources).toEqual(sent.sources);
    const hosted = await fetch(calendar?.hostedUrl ?? '');
    expect(hosted.status).toBe(200);
    const lines = (await hosted.text()).replace(/\r\n[ \t]/g, '').split('\r\n');
    for (const summary of [
      '[Work] Team Meeting - Room 101',
      '[Work] Lunch at the Cafe',
      '[Work] Review - Room 7',
      '[Home] Piano lesson',
      '[Home] Dinner with Sam',
    ]) {
      expect(lines).toContain(`SUMMARY:${summary}`);
    }
    for (const uid of ['one@hearth.test', 'two@hearth.test', 'three@hearth.test', 'piano@home.test', 'dinner@home.test']) expect(lines).toContain(`UID:${uid}`);
    expect(lines).not.toContain('UID:extra@extra.test');

    // Reopened from the list, the editor shows the same feeds and says the hosted feed matches.
    await page.goto(url('/calendars'));
    const item = page.getByRole('listitem').filter({ hasText: 'Merged' });
    await item.getByText('and 1 more feed').waitFor();
    await item.getByRole('link', { name: 'Edit Merged' }).click();
    await waitText(page, '.cal-samples__counter', '1/5');
    await expect(label(page, 1).inputValue()).resolves.toBe('Work');
    await expect(prefix(page, 2).inputValue()).resolves.toBe('[Home] ');
    await page.getByRole('region', { name: 'Hosted feed' }).getByText('The live feed matches this editor.').waitFor();
    expect(dialogs.seen.filter((d) => d.type === 'alert')).toEqual([]);
  });

  it("says at the feed that fails why, while the other feeds' events still show, with no alert", async () => {
    const page = b.page;
    const dialogs = new DialogScript(page);
    await page.goto(editorUrl('sources-failing', up().url('/work.ics'), 'One failing'));
    await waitText(page, '.cal-samples__counter', '1/3');
    await page.getByRole('button', { name: 'Add another feed' }).click();
    await address(page, 2).fill(up().url('/down.ics'));
    await address(page, 2).press('Enter');
    const failed = feedItem(page, 2).locator('.cal-source__report--failed');
    await failed.waitFor();
    await expect(failed.textContent()).resolves.toMatch(/^This feed could not be read: .+[.!?)] The calendar shows the other feeds’ events\.$/);
    // The failure describes the feed's address box, for a screen reader reaching it.
    const describedBy = (await address(page, 2).getAttribute('aria-describedby')) ?? '';
    expect(describedBy.split(' ')).toContain(await failed.getAttribute('id'));
    await waitText(page, '.cal-samples__counter', '1/3');
    await feedItem(page, 1)
      .getByText(/^3 events · /)
      .waitFor();
    await expect(sampleValue(page, 'SUMMARY').textContent()).resolves.toBe('Team Meeting - Room 101');
    await expect(page.locator('.cal-samples .cal-source-tag__name').textContent()).resolves.toBe(`${new URL(up().url('/')).host} (feed 1)`);

    // An address the editor can tell is wrong is marked at once and not sent; the rest is still read.
    await address(page, 2).fill('ftp://example.com/cal.ics');
    await address(page, 2).press('Tab');
    const problem = feedItem(page, 2).getByText('Only http, https and webcal addresses can be subscribed to, not ftp:');
    await problem.waitFor();
    await expect(address(page, 2).getAttribute('aria-invalid')).resolves.toBe('true');
    await waitText(page, '.cal-samples__counter', '1/3');

    // A feed that can be read in its place: its events join the others.
    await address(page, 2).fill(up().url('/home.ics'));
    await address(page, 2).press('Enter');
    await problem.waitFor({ state: 'detached' });
    await waitText(page, '.cal-samples__counter', '1/5');
    await feedItem(page, 2)
      .getByText(/^2 events · /)
      .waitFor();
    expect(dialogs.seen.filter((d) => d.type === 'alert')).toEqual([]);
  });

  it("keeps the editor's link on the calendar's first feed, so a reload opens the feeds it has", async () => {
    const page = b.page;
    await page.goto(editorUrl('sources-first', up().url('/work.ics'), 'First'));
    await waitText(page, '.cal-samples__counter', '1/3');
    await page.getByRole('button', { name: 'Add another feed' }).click();
    await address(page, 2).fill(up().url('/home.ics'));
    await prefix(page, 2).fill('[Home] ');
    await prefix(page, 2).press('Enter');
    await waitText(page, '.cal-samples__counter', '1/5');

    // The first feed removed: the one left keeps its prefix, so it stays a feed of the list.
    await page.getByRole('button', { name: 'Remove feed 1', exact: false }).click();
    await waitText(page, '.cal-samples__counter', '1/2');
    await page.waitForURL((address) => address.searchParams.get('url') === up().url('/home.ics'));
    expect(await focusedId(page)).toBe(await address(page, 1).getAttribute('id'));
    await page.getByRole('button', { name: 'Build & Host' }).click();
    await page.getByRole('region', { name: 'Hosted feed' }).waitFor();
    const [calendar] = await stored(page);
    expect(calendar).toMatchObject({ url: up().url('/home.ics'), sources: [{ url: up().url('/home.ics'), prefix: '[Home] ' }] });

    await page.reload();
    await waitText(page, '.cal-samples__counter', '1/2');
    await expect(address(page, 1).inputValue()).resolves.toBe(up().url('/home.ics'));
    await expect(prefix(page, 1).inputValue()).resolves.toBe('[Home] ');
    await expect(sampleValue(page, 'SUMMARY').textContent()).resolves.toMatch(/^\[Home\] /);
    await page.getByRole('region', { name: 'Hosted feed' }).getByText('The live feed matches this editor.').waitFor();
  });

  it('takes at most ten feeds, saying so at the button', async () => {
    const page = b.page;
    await page.goto(editorUrl('sources-ten', up().url('/work.ics'), 'Ten'));
    await waitText(page, '.cal-samples__counter', '1/3');
    const add = page.getByRole('button', { name: 'Add another feed' });
    for (let i = 2; i <= 10; i += 1) {
      await add.click();
      await address(page, i).waitFor();
    }
    await expect(add.getAttribute('aria-disabled')).resolves.toBe('true');
    await page.getByText('A calendar can merge at most 10 feeds: remove one to add another.').waitFor();
    // Still focusable (aria-disabled): pressing it adds nothing.
    await add.focus();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('listitem', { name: /^Feed \d+/ }).count()).resolves.toBe(10);
    // Empty feeds are left out: still the one feed's events, read as the one address it is.
    await waitText(page, '.cal-samples__counter', '1/3');
    await page.getByRole('button', { name: 'Remove feed 10' }).click();
    await expect(add.getAttribute('aria-disabled')).resolves.toBeNull();
    expect(await focusedId(page)).toBe(await address(page, 9).getAttribute('id'));
  });

  it('keeps a calendar of one feed as it was: the address alone on the wire and in storage', async () => {
    const page = b.page;
    await page.goto(editorUrl('sources-one', up().url('/work.ics'), 'One'));
    await waitText(page, '.cal-samples__counter', '1/3');
    // A feed added and removed again: back to the one address, focus on the button.
    await page.getByRole('button', { name: 'Add another feed' }).click();
    await page.getByRole('button', { name: 'Remove feed 2' }).click();
    await page.locator('.cal-editor__url', { hasText: up().url('/work.ics') }).waitFor();
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Add another feed');
    const publish = page.waitForRequest((r) => r.url().endsWith('/api/calendars') && r.method() === 'POST');
    await page.getByRole('button', { name: 'Build & Host' }).click();
    const sent = JSON.parse((await publish).postData() ?? '{}') as Record<string, unknown>;
    expect(Object.keys(sent)).toEqual(['id', 'name', 'url', 'mapping', 'timezones', 'occurrences']);
    expect(sent.url).toBe(up().url('/work.ics'));
    await page.getByRole('region', { name: 'Hosted feed' }).waitFor();
    const [calendar] = await stored(page);
    expect(calendar).not.toHaveProperty('sources');
    expect(calendar?.url).toBe(up().url('/work.ics'));
  });

  for (const device of DEVICES) {
    for (const scheme of SCHEMES) {
      it(`has no axe violations in the editor with two feeds (one failing) on ${device.name}, ${scheme}, and fits the screen`, async () => {
        const context: BrowserContext = await b.browser.newContext({ ...device.options, colorScheme: scheme });
        try {
          const page = await context.newPage();
          await openTwoFeeds(page, `sources-axe-${device.name}-${scheme}`);
          await page.getByRole('button', { name: 'Add another feed' }).click();
          await address(page, 3).fill(up().url('/down.ics'));
          await address(page, 3).press('Enter');
          await feedItem(page, 3).locator('.cal-source__report--failed').waitFor();
          await prefix(page, 1).fill('\t');
          await prefix(page, 1).press('Tab');
          await feedItem(page, 1).getByText('The prefix takes no tabs, line breaks or other control characters.').waitFor();
          await page.locator('.cal-samples .cal-source-tag').waitFor();
          await page.waitForTimeout(300); // lets transitions and live previews settle before judging colours
          const found = describeViolations(`editor with feeds (${device.name}, ${scheme})`, await axe(page));
          expect(found, found.join('\n')).toEqual([]);
          await expect(page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).resolves.toBeLessThanOrEqual(0);
        } finally {
          await context.close();
        }
      });
    }
  }
});

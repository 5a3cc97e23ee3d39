// The calendar tool in Chromium against the real binary (SPEC.md 2-5, 7-9), with an upstream ICS
// server on loopback: add → fetch → browse samples → map → regex dialog → preview → save →
// Build & Host → the hosted feed itself, republishing with the edit token, unpublishing, the
// failure alerts and delete.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowser } from './support/browser';
import { startServer } from './support/server';
import { DialogScript } from './calendars-support/dialogs';
import { useCalendarSite } from './calendars-support/site';
import { numberedFeed, WORK_FEED } from './calendars-support/upstream';

interface StoredCalendar {
  id: string;
  name: string;
  url: string;
  mapping: Record<string, string>;
  lastBuiltAt: string;
  editToken?: string;
  hostedUrl?: string;
}

const FEED_ERROR = 'Failed to fetch/parse ICS. Check CORS or URL.';
/** What the regex dialog builds for pattern ` - Room (\d+)` and replacement ` (room $1/A)`. */
const SUMMARY_TOKEN = String.raw`${'$'}{SUMMARY|re:s/ - Room (\\d+)/ (room $1\/A)/}`;

describe('calendars: list, editor and publishing', () => {
  const b = useBrowser();
  const { url, up } = useCalendarSite({ '/work.ics': { body: WORK_FEED } });

  const stored = (page: Page) => page.evaluate(() => JSON.parse(localStorage.getItem('calendars:v1') ?? '[]') as unknown) as Promise<StoredCalendar[]>;
  const field = (page: Page, name: string) => page.locator(`#cal-map-${name}`);
  const sampleValue = (page: Page, key: string) =>
    page
      .locator('.cal-fields__row')
      .filter({ has: page.locator('dt', { hasText: new RegExp(`^${key}$`) }) })
      .locator('.cal-fields__value');
  const textOf = async (page: Page, selector: string) => (await page.locator(selector).textContent()) ?? '';
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
  const waitPreview = (page: Page, name: string, expected: string) => waitText(page, `.cal-preview__value[data-field="${name}"]`, expected);

  /** Adds a calendar through the list's prompts and waits for the editor's first sample. */
  async function addCalendar(page: Page, dialogs: DialogScript, feedUrl: string, name: string) {
    await page.goto(url('/calendars'));
    dialogs.answer(feedUrl, name);
    await page.getByRole('button', { name: 'Add Calendar' }).click();
    await page.waitForURL(/\/calendars\/new\?/);
    await page.getByRole('heading', { name: 'Editor', level: 1 }).waitFor();
  }

  it('adds a calendar from the empty state, browses the samples and shows the feed size', async () => {
    const page = b.page;
    const dialogs = new DialogScript(page);
    await page.goto(url('/calendars'));
    await page.getByRole('heading', { name: 'Calendars', level: 1 }).waitFor();
    await page.getByText('No calendars saved yet.').waitFor();

    // Cancel and an empty address both abort.
    dialogs.answer(false);
    await page.getByRole('button', { name: 'Add from URL' }).click();
    await dialogs.waitFor(1);
    dialogs.answer('   ');
    await page.getByRole('button', { name: 'Add from URL' }).click();
    await dialogs.waitFor(2);
    expect(page.url()).toBe(url('/calendars'));

    dialogs.answer(up().url('/work.ics'), '');
    await page.getByRole('button', { name: 'Add from URL' }).click();
    await page.waitForURL(/\/calendars\/new\?/);
    const seen = await dialogs.waitFor(4);
    expect(seen[2]?.type).toBe('prompt');
    expect(seen[3]?.defaultValue).toBe('New Calendar');
    const params = new URL(page.url()).searchParams;
    expect(params.get('url')).toBe(up().url('/work.ics'));
    expect(params.get('name')).toBe('New Calendar');
    expect(params.get('id')).toMatch(/^[0-9a-f-]{36}$/);

    await page.getByRole('heading', { name: 'Editor', level: 1 }).waitFor();
    await page.locator('.cal-editor__name', { hasText: 'New Calendar' }).waitFor();
    await page.locator('.cal-editor__url', { hasText: up().url('/work.ics') }).waitFor();
    await waitText(page, '.cal-samples__counter', '1/3');
    await expect(textOf(page, '.cal-editor__meta')).resolves.toMatch(/^3 events·\d+(\.\d)? (B|KB)$/);
    await expect(page.locator('.cal-warning').count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Refetch' }).isEnabled()).resolves.toBe(true);

    // The sample: properties and parameters (CN), values unescaped.
    await expect(sampleValue(page, 'SUMMARY').textContent()).resolves.toBe('Team Meeting - Room 101');
    await expect(sampleValue(page, 'LOCATION').textContent()).resolves.toBe('Building A, Room 101');
    await expect(sampleValue(page, 'DESCRIPTION').textContent()).resolves.toBe('Weekly sync\nAgenda: roadmap');
    await expect(sampleValue(page, 'CN').textContent()).resolves.toBe('Ada Lovelace');

    const prev = page.getByRole('button', { name: 'Previous sample' });
    const next = page.getByRole('button', { name: 'Next sample' });
    await expect(prev.isDisabled()).resolves.toBe(true);
    await next.click();
    await waitText(page, '.cal-samples__counter', '2/3');
    await expect(sampleValue(page, 'SUMMARY').textContent()).resolves.toBe('Lunch at the Cafe');
    await next.click();
    await waitText(page, '.cal-samples__counter', '3/3');
    await expect(next.isDisabled()).resolves.toBe(true);
    await prev.click();
    await waitText(page, '.cal-samples__counter', '2/3');

    // Refetch asks upstream again and starts over at the first event.
    // (The server reuses a copy younger than a few seconds even then, so check the request.)
    const refetch = page.waitForRequest((r) => r.url().includes('/api/feed?'));
    await page.getByRole('button', { name: 'Refetch' }).click();
    expect(new URL((await refetch).url()).searchParams.get('refresh')).toBe('true');
    await waitText(page, '.cal-samples__counter', '1/3');
    await page.getByRole('button', { name: 'Refetch' }).waitFor();
  });

  it('maps fields with the token cloud and the regex dialog, previews, saves, hosts and serves the remapped feed', async () => {
    const page = b.page;
    await b.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url() });
    const dialogs = new DialogScript(page);
    await addCalendar(page, dialogs, up().url('/work.ics'), 'Work');
    await waitText(page, '.cal-samples__counter', '1/3');

    // The mapping panel: five fields with the spec's rows and placeholder, defaults in place.
    for (const [name, rows] of [
      ['SUMMARY', '2'],
      ['DESCRIPTION', '6'],
      ['LOCATION', '2'],
      ['DTSTART', '2'],
      ['DTEND', '2'],
    ] as const) {
      await expect(field(page, name).getAttribute('rows')).resolves.toBe(rows);
      await expect(field(page, name).getAttribute('placeholder')).resolves.toBe('Use tokens like ${SUMMARY} ${LOCATION}');
      await expect(field(page, name).inputValue()).resolves.toBe(`\${${name}}`);
    }
    await waitPreview(page, 'SUMMARY', 'Team Meeting - Room 101');
    await waitPreview(page, 'LOCATION', 'Building A, Room 101');
    await waitPreview(page, 'DESCRIPTION', 'Weekly sync\nAgenda: roadmap');

    // The token cloud inserts at the caret of the focused field.
    await field(page, 'DESCRIPTION').fill('Where: \nNotes: ${DESCRIPTION}');
    await field(page, 'DESCRIPTION').evaluate((el: HTMLTextAreaElement) => el.setSelectionRange(7, 7));
    await page.locator('.cal-tokens').getByRole('button', { name: '${LOCATION}', exact: true }).click();
    await expect(field(page, 'DESCRIPTION').inputValue()).resolves.toBe('Where: ${LOCATION}\nNotes: ${DESCRIPTION}');
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('cal-map-DESCRIPTION');
    await page.keyboard.type('!');
    await expect(field(page, 'DESCRIPTION').inputValue()).resolves.toBe('Where: ${LOCATION}!\nNotes: ${DESCRIPTION}');
    await waitPreview(page, 'DESCRIPTION', 'Where: Building A, Room 101!\nNotes: Weekly sync\nAgenda: roadmap');

    // An invalid pattern in a template: the error under the field, the value left unchanged.
    await field(page, 'LOCATION').fill('${LOCATION|re:s/(/x/}');
    await page.locator('#cal-map-LOCATION-error').waitFor();
    await expect(page.locator('#cal-map-LOCATION-error').textContent()).resolves.toMatch(/^At character \d+: /);
    await expect(field(page, 'LOCATION').getAttribute('aria-invalid')).resolves.toBe('true');
    await waitPreview(page, 'LOCATION', 'Building A, Room 101');
    await field(page, 'LOCATION').fill('${LOCATION}');
    await page.locator('#cal-map-LOCATION-error').waitFor({ state: 'detached' });

    // The regex dialog for SUMMARY, inserting into the SUMMARY field (the last one focused).
    await field(page, 'SUMMARY').fill('');
    await field(page, 'SUMMARY').focus();
    const opener = page.getByRole('button', { name: 'Insert SUMMARY', exact: true });
    await opener.click();
    const dialog = page.getByRole('dialog', { name: 'Regex transform for SUMMARY → insert into SUMMARY' });
    await dialog.waitFor();
    await expect(dialog.locator('.cal-regex__sample').textContent()).resolves.toBe('Team Meeting - Room 101');
    await expect(dialog.getByLabel('Replacement').getAttribute('placeholder')).resolves.toBe(
      'Use $1..$9 for groups, $& for the whole match, \\n for a new line, \\t for a tab',
    );
    const result = dialog.locator('.cal-regex__result');
    const pattern = dialog.getByLabel('Pattern');
    const replacement = dialog.getByLabel('Replacement');
    const flag = (f: string) => page.getByRole('dialog').getByRole('checkbox', { name: new RegExp(`^${f} \\(`) });
    const resultIs = (expected: string) => waitText(page, '.cal-regex__result', expected);
    await resultIs('Team Meeting - Room 101');

    // Invalid pattern: a warning sign and the error text.
    await pattern.fill('Room (');
    await dialog.locator('.cal-regex__error svg').waitFor();
    await expect(result.textContent()).resolves.toMatch(/^Warning: .*(unclosed|group)/i);

    // Each flag changes the result as the engine says.
    await pattern.fill('o');
    await replacement.fill('0');
    await resultIs('Team Meeting - R0om 101');
    await flag('g').check();
    await resultIs('Team Meeting - R00m 101');
    await flag('g').uncheck();
    await pattern.fill('team');
    await replacement.fill('Crew');
    await resultIs('Team Meeting - Room 101');
    await flag('i').check();
    await resultIs('Crew Meeting - Room 101');
    await flag('i').uncheck();
    await pattern.fill('e.*e');
    await replacement.fill('X');
    await resultIs('TXting - Room 101');
    await flag('U').check();
    await resultIs('TXeting - Room 101');
    await flag('U').uncheck();
    await pattern.fill('^Room');
    await replacement.fill('X');
    await resultIs('Team Meeting - Room 101');
    await flag('m').check();
    await resultIs('Team Meeting - Room 101');
    await flag('m').uncheck();

    // The slash in the replacement is escaped in the token and still means a slash.
    await pattern.fill(' - Room (\\d+)');
    await replacement.fill(' (room $1/A)');
    await resultIs('Team Meeting (room 101/A)');
    await dialog.getByRole('button', { name: 'Insert token' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await expect(field(page, 'SUMMARY').inputValue()).resolves.toBe(SUMMARY_TOKEN);
    await expect(page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).resolves.toBe('Insert SUMMARY');
    await waitPreview(page, 'SUMMARY', 'Team Meeting (room 101/A)');

    // The m and s flags on a multi-line value (DESCRIPTION), then Cancel inserts nothing.
    await page.getByRole('button', { name: 'Insert DESCRIPTION', exact: true }).click();
    const descDialog = page.getByRole('dialog', { name: 'Regex transform for DESCRIPTION → insert into SUMMARY' });
    await descDialog.waitFor();
    await descDialog.getByLabel('Pattern').fill('^Agenda');
    await descDialog.getByLabel('Replacement').fill('Topics');
    await resultIs('Weekly sync\nAgenda: roadmap');
    await flag('m').check();
    await resultIs('Weekly sync\nTopics: roadmap');
    await descDialog.getByLabel('Pattern').fill('sync.Agenda');
    await descDialog.getByLabel('Replacement').fill('sync / Agenda');
    await flag('m').uncheck();
    await resultIs('Weekly sync\nAgenda: roadmap');
    await flag('s').check();
    await resultIs('Weekly sync / Agenda: roadmap');
    await descDialog.getByRole('button', { name: 'Cancel' }).click();
    await descDialog.waitFor({ state: 'hidden' });
    await expect(field(page, 'SUMMARY').inputValue()).resolves.toBe(SUMMARY_TOKEN);

    // Browsing samples re-renders the preview; the second event has no room.
    await page.getByRole('button', { name: 'Next sample' }).click();
    await waitPreview(page, 'SUMMARY', 'Lunch at the Cafe');
    await page.getByRole('button', { name: 'Previous sample' }).click();
    await waitPreview(page, 'SUMMARY', 'Team Meeting (room 101/A)');

    // Save: stored under calendars:v1, back to the list.
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(url('/calendars'));
    const [saved] = await stored(page);
    expect(saved?.name).toBe('Work');
    expect(saved?.url).toBe(up().url('/work.ics'));
    expect(saved?.mapping.SUMMARY).toBe(SUMMARY_TOKEN);
    expect(saved?.mapping.DESCRIPTION).toBe('Where: ${LOCATION}!\nNotes: ${DESCRIPTION}');
    expect(Number.isNaN(Date.parse(saved?.lastBuiltAt ?? ''))).toBe(false);
    const item = page.getByRole('listitem').filter({ hasText: 'Work' });
    await item.getByText(up().url('/work.ics')).waitFor();

    // Edit reopens it with the saved mapping; Build & Host shows 'Publishing...', then the banner.
    await item.getByRole('link', { name: 'Edit Work' }).click();
    await page.waitForURL(/\/calendars\/new\?/);
    await expect(field(page, 'SUMMARY').inputValue()).resolves.toBe(SUMMARY_TOKEN);
    await waitText(page, '.cal-samples__counter', '1/3');
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/calendars', async (route) => {
      await held;
      await route.continue();
    });
    await page.getByRole('button', { name: 'Build & Host' }).click();
    await page.getByRole('button', { name: 'Publishing...' }).waitFor();
    // Busy, the button stays focusable (aria-disabled) so focus does not fall to <body>.
    await expect(page.getByRole('button', { name: 'Publishing...' }).getAttribute('aria-disabled')).resolves.toBe('true');
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Publishing...');
    release();
    const banner = page.getByRole('region', { name: 'Hosted feed' });
    await banner.waitFor();
    await page.unroute('**/api/calendars');
    await page.getByRole('button', { name: 'Build & Host' }).waitFor();
    const id = saved?.id ?? '';
    const hostedUrl = url(`/cal/${id}.ics`);
    await expect(banner.textContent()).resolves.toContain(`Hosted: ${hostedUrl}`);
    await expect(banner.getByRole('link').getAttribute('href')).resolves.toBe(hostedUrl);
    const webcal = hostedUrl.replace(/^http:/, 'webcal:');
    const copy = banner.getByRole('button', { name: `Copy ${webcal} link` });
    await copy.click();
    await banner.getByText('Copied.', { exact: false }).waitFor();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(webcal);

    const [published] = await stored(page);
    expect(published?.hostedUrl).toBe(hostedUrl);
    expect(published?.editToken).toMatch(/.{16,}/);

    // The hosted feed: SUMMARY remapped where the pattern matches, everything else untouched.
    const hosted = await fetch(hostedUrl);
    expect(hosted.status).toBe(200);
    expect(hosted.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    const body = await hosted.text();
    const upstreamLines = WORK_FEED.split('\r\n');
    // Unfold (long lines continue on lines starting with a space) before comparing.
    const hostedLines = body.replace(/\r\n[ \t]/g, '').split('\r\n');
    expect(hostedLines).toContain('SUMMARY:Team Meeting (room 101/A)');
    expect(hostedLines).toContain('SUMMARY:Lunch at the Cafe');
    expect(hostedLines).toContain('SUMMARY:Review - Room 7'.replace(' - Room 7', ' (room 7/A)'));
    expect(hostedLines).toContain('DESCRIPTION:Where: Building A\\, Room 101!\\nNotes: Weekly sync\\nAgenda: roadmap');
    for (const line of upstreamLines) {
      if (line === '' || line.startsWith('SUMMARY:') || line.startsWith('DESCRIPTION:')) continue;
      expect(hostedLines).toContain(line);
    }

    // Republishing sends the stored edit token and updates the hosted feed.
    await field(page, 'SUMMARY').fill('[Work] ${SUMMARY}');
    const request = page.waitForRequest((r) => r.url().endsWith('/api/calendars') && r.method() === 'POST');
    await page.getByRole('button', { name: 'Build & Host' }).click();
    const sent = JSON.parse((await request).postData() ?? '{}') as { editToken?: string; mapping?: Record<string, string> };
    expect(sent.editToken).toBe(published?.editToken);
    expect(sent.mapping?.SUMMARY).toBe('[Work] ${SUMMARY}');
    await page.getByRole('button', { name: 'Build & Host' }).waitFor();
    await expect.poll(async () => (await (await fetch(hostedUrl)).text()).includes('SUMMARY:[Work] Lunch at the Cafe'), { timeout: 10_000 }).toBe(true);
    expect(dialogs.seen.filter((d) => d.type === 'alert')).toEqual([]);
    const [republished] = await stored(page);
    expect(republished?.editToken).toBe(published?.editToken);

    // Unpublish takes the hosted feed down after a confirmation.
    dialogs.answer(false);
    await banner.getByRole('button', { name: 'Unpublish' }).click();
    await dialogs.waitFor(dialogs.seen.length);
    await expect(banner.isVisible()).resolves.toBe(true);
    dialogs.answer(true);
    await banner.getByRole('button', { name: 'Unpublish' }).click();
    await banner.waitFor({ state: 'detached' });
    // Calendar apps still polling a deleted feed are told it is gone for good.
    expect((await fetch(hostedUrl)).status).toBe(410);
    const [unpublished] = await stored(page);
    expect(unpublished?.editToken).toBeUndefined();
    expect(unpublished?.hostedUrl).toBeUndefined();
  });
  /** Puts calendars in storage (the page must be on the site) and opens the editor on the first. */
  async function seed(page: Page, calendars: StoredCalendar[]) {
    await page.goto(url('/calendars'));
    await page.evaluate((list) => localStorage.setItem('calendars:v1', JSON.stringify(list)), calendars);
  }
  const editorUrl = (c: Pick<StoredCalendar, 'id' | 'url' | 'name'>) =>
    url(`/calendars/new?${new URLSearchParams({ id: c.id, url: c.url, name: c.name }).toString()}`);
  const record = (id: string, name: string, feedUrl: string): StoredCalendar => ({
    id,
    name,
    url: feedUrl,
    mapping: { SUMMARY: '${SUMMARY}', DESCRIPTION: '${DESCRIPTION}', LOCATION: '${LOCATION}', DTSTART: '${DTSTART}', DTEND: '${DTEND}' },
    lastBuiltAt: '2025-01-01T00:00:00.000Z',
  });

  it('alerts the spec text and the server reason when the feed cannot be fetched or read, and clears Loading…', async () => {
    const page = b.page;
    const dialogs = new DialogScript(page);
    up().set('/down.ics', { status: 500, body: 'upstream broke' });
    up().set('/page.ics', { body: '<html><body>Not a calendar</body></html>', contentType: 'text/html' });

    const cases: [string, RegExp][] = [
      // The server names the input in its answer's field; the alert names it in words.
      ['ftp://example.com/cal.ics', /^feed address: /m],
      [up().url('/page.ics'), /not a calendar/i],
      [up().url('/down.ics'), /500/],
    ];
    for (const [feedUrl, reason] of cases) {
      const before = dialogs.seen.length;
      await page.goto(editorUrl({ id: 'broken', url: feedUrl, name: 'Broken' }));
      const [alert] = (await dialogs.waitFor(before + 1)).slice(before);
      expect(alert?.type).toBe('alert');
      expect(alert?.message.startsWith(`${FEED_ERROR}\n`)).toBe(true);
      expect(alert?.message.slice(FEED_ERROR.length + 1)).toMatch(reason);
      await page.getByRole('button', { name: 'Refetch' }).waitFor();
      await page.getByText('No sample: the feed could not be read. Try Refetch.').waitFor();
      await expect(textOf(page, '.cal-samples__counter')).resolves.toBe('0/0');
    }

    // Refetch after the upstream recovers shows the events, with no further alert.
    up().set('/down.ics', { body: WORK_FEED });
    const before = dialogs.seen.length;
    await page.getByRole('button', { name: 'Refetch' }).click();
    await waitText(page, '.cal-samples__counter', '1/3');
    expect(dialogs.seen).toHaveLength(before);
  });

  it('alerts "Publish failed:" with the server text and clears Publishing...', async () => {
    const page = b.page;
    const dialogs = new DialogScript(page);
    // An id published by someone else: this browser's token is not the right one.
    const first = await fetch(url('/api/calendars'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ id: 'taken', name: 'Taken', url: up().url('/work.ics'), mapping: {} }),
    });
    expect(first.status).toBe(201);
    await seed(page, [{ ...record('taken', 'Mine', up().url('/work.ics')), editToken: 'not-the-token' }]);
    await page.goto(editorUrl({ id: 'taken', url: up().url('/work.ics'), name: 'Mine' }));
    await waitText(page, '.cal-samples__counter', '1/3');
    dialogs.answer(true);
    await page.getByRole('button', { name: 'Build & Host' }).click();
    const [forbidden] = await dialogs.waitFor(1);
    expect(forbidden?.type).toBe('alert');
    expect(forbidden?.message).toMatch(/^Publish failed: calendar 'taken' was published before: .*edit token/);
    await page.getByRole('button', { name: 'Build & Host' }).waitFor();
    await expect(page.getByRole('region', { name: 'Hosted feed' }).count()).resolves.toBe(0);

    // A name the server refuses: the input it names (its answer's field), then its words.
    await page.goto(editorUrl({ id: 'long-name', url: up().url('/work.ics'), name: 'n'.repeat(201) }));
    await waitText(page, '.cal-samples__counter', '1/3');
    await page.getByRole('button', { name: 'Build & Host' }).click();
    const [, tooLong] = await dialogs.waitFor(2);
    expect(tooLong?.message).toBe('Publish failed: name: at most 200 characters are allowed');
    await page.getByRole('button', { name: 'Build & Host' }).waitFor();
    // Build & Host saves first (issue 16): the refused calendar is kept in the list, not hosted.
    const kept = await stored(page);
    expect(kept).toHaveLength(2);
    expect(kept.find((c) => c.id === 'long-name')?.hostedUrl).toBeUndefined();
  });

  it('asks for the publish key when the server wants one, keeps it and retries', async () => {
    const keyed = await startServer(['--allow-private-feeds', '--publish-key', 's3cret']);
    try {
      const page = b.page;
      const dialogs = new DialogScript(page);
      const target = `${keyed.url}/calendars/new?${new URLSearchParams({ id: 'keyed', url: up().url('/work.ics'), name: 'Keyed' }).toString()}`;
      // A keyed site guards the whole editor: opening it asks at once. Cancelling stops quietly.
      dialogs.answer(false);
      await page.goto(target);
      await dialogs.waitFor(1);
      await page.locator('.cal-editor__name', { hasText: 'Keyed' }).waitFor();

      dialogs.answer('wrong', 's3cret');
      await page.reload();
      await waitText(page, '.cal-samples__counter', '1/3');
      const seen = await dialogs.waitFor(3);
      expect(seen.map((d) => d.type)).toEqual(['prompt', 'prompt', 'prompt']);
      expect(seen[1]?.message).toMatch(/publish key/i);
      expect(seen[2]?.message).toMatch(/not accepted/i);
      await expect(page.evaluate(() => localStorage.getItem('site:key'))).resolves.toBe('s3cret');

      // The kept key makes publishing ask nothing.
      const request = page.waitForRequest((r) => r.url().endsWith('/api/calendars'));
      await page.getByRole('button', { name: 'Build & Host' }).click();
      expect((await request).headers()['x-publish-key']).toBe('s3cret');
      await page.getByRole('region', { name: 'Hosted feed' }).waitFor();
      expect(dialogs.seen).toHaveLength(3);
      expect((await fetch(`${keyed.url}/cal/keyed.ics`)).status).toBe(200);
    } finally {
      await keyed.stop();
    }
  });

  it('lists saved calendars and deletes one after confirmation, keeping it on cancel', async () => {
    const page = b.page;
    const dialogs = new DialogScript(page);
    // A published calendar: deleting it also takes its hosted feed down (its token lives here only).
    const published = await fetch(url('/api/calendars'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ id: 'gone-soon', name: 'Hosted one', url: up().url('/work.ics'), mapping: {} }),
    });
    const { editToken, hostedUrl } = (await published.json()) as { editToken: string; hostedUrl: string };
    await seed(page, [record('keep', 'Keep me', up().url('/work.ics')), { ...record('gone-soon', 'Hosted one', up().url('/work.ics')), editToken, hostedUrl }]);
    await page.reload();
    const items = page.getByRole('list', { name: 'Saved calendars' }).getByRole('listitem');
    await items.nth(1).waitFor();
    await expect(items.allTextContents()).resolves.toEqual([expect.stringContaining('Keep me'), expect.stringContaining('Hosted one')]);
    await items.filter({ hasText: 'Hosted one' }).getByText('Hosted', { exact: true }).waitFor();

    dialogs.answer(false);
    await page.getByRole('button', { name: 'Delete Hosted one' }).click();
    const [cancelled] = await dialogs.waitFor(1);
    expect(cancelled).toMatchObject({ type: 'confirm', message: 'Delete this calendar?' });
    await expect(items.count()).resolves.toBe(2);
    expect((await fetch(hostedUrl)).status).toBe(200);

    dialogs.answer(true);
    await page.getByRole('button', { name: 'Delete Hosted one' }).click();
    await page.getByRole('button', { name: 'Delete Hosted one' }).waitFor({ state: 'detached' });
    await expect(items.count()).resolves.toBe(1);
    await expect(stored(page)).resolves.toMatchObject([{ id: 'keep' }]);
    // Calendar apps still polling a deleted feed are told it is gone for good.
    expect((await fetch(hostedUrl)).status).toBe(410);
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Calendars');

    dialogs.answer(true);
    await page.getByRole('button', { name: 'Delete Keep me' }).click();
    await page.getByText('No calendars saved yet.').waitFor();
    await expect(stored(page)).resolves.toEqual([]);
    expect(dialogs.seen.map((d) => d.type)).toEqual(['confirm', 'confirm', 'confirm']);
  });

  it('deletes a calendar whose edit token the server no longer accepts, leaving that hosted feed alone', async () => {
    const page = b.page;
    const dialogs = new DialogScript(page);
    const theirs = await fetch(url('/api/calendars'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ id: 'theirs', name: 'Theirs', url: up().url('/work.ics'), mapping: {} }),
    });
    const { hostedUrl } = (await theirs.json()) as { hostedUrl: string };
    await seed(page, [{ ...record('theirs', 'Stale copy', up().url('/work.ics')), editToken: 'stale-token', hostedUrl }]);
    await page.reload();
    dialogs.answer(true);
    await page.getByRole('button', { name: 'Delete Stale copy' }).click();
    await page.getByText('No calendars saved yet.').waitFor();
    expect(dialogs.seen.map((d) => d.type)).toEqual(['confirm']);
    expect((await fetch(hostedUrl)).status).toBe(200);
  });

  it('offers the list and Add when the editor address names no calendar', async () => {
    const page = b.page;
    const dialogs = new DialogScript(page);
    await page.goto(url('/calendars/new'));
    await page.getByText('This address names no calendar to edit.').waitFor();
    dialogs.answer(up().url('/work.ics'), 'From the editor');
    await page.getByRole('button', { name: 'Add Calendar' }).click();
    await waitText(page, '.cal-samples__counter', '1/3');
    await page.locator('.cal-editor__name', { hasText: 'From the editor' }).waitFor();
  });

  it('closes the regex dialog with Escape and a click outside, returns focus, and inserts into DESCRIPTION by default', async () => {
    const page = b.page;
    await page.goto(editorUrl({ id: 'dialog', url: up().url('/work.ics'), name: 'Dialog' }));
    await waitText(page, '.cal-samples__counter', '1/3');
    const opener = page.getByRole('button', { name: 'Insert LOCATION', exact: true });
    const dialog = page.getByRole('dialog', { name: 'Regex transform for LOCATION → insert into DESCRIPTION' });
    const focusedLabel = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label'));

    await opener.click();
    await dialog.waitFor();
    await expect(page.evaluate(() => document.activeElement?.closest('dialog') !== null)).resolves.toBe(true);
    // Tab stays inside the modal.
    for (let i = 0; i < 12; i += 1) await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.closest('dialog') !== null)).resolves.toBe(true);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await expect(focusedLabel()).resolves.toBe('Insert LOCATION');

    await opener.click();
    await dialog.waitFor();
    await page.mouse.click(3, 3);
    await dialog.waitFor({ state: 'detached' });
    await expect(focusedLabel()).resolves.toBe('Insert LOCATION');
    await expect(field(page, 'DESCRIPTION').inputValue()).resolves.toBe('${DESCRIPTION}');

    // With the keyboard only: Enter on the opener, type a pattern, Enter inserts.
    await opener.focus();
    await page.keyboard.press('Enter');
    await dialog.waitFor();
    await page.keyboard.type('Building');
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    // Added to the template, spaced from the token before it.
    await expect(field(page, 'DESCRIPTION').inputValue()).resolves.toBe('${DESCRIPTION} ${LOCATION|re:s/Building//}');
    await waitPreview(page, 'DESCRIPTION', 'Weekly sync\nAgenda: roadmap  A, Room 101');

    // Without a pattern the token is plain.
    await page.getByRole('button', { name: 'Insert CN', exact: true }).click();
    const cnDialog = page.getByRole('dialog', { name: 'Regex transform for CN → insert into DESCRIPTION' });
    await cnDialog.waitFor();
    await waitText(page, '.cal-regex__result', 'Ada Lovelace');
    await cnDialog.getByRole('button', { name: 'Insert token' }).click();
    await cnDialog.waitFor({ state: 'detached' });
    await expect(field(page, 'DESCRIPTION').inputValue()).resolves.toBe('${DESCRIPTION} ${LOCATION|re:s/Building//} ${CN}');
  });

  it('pages through a feed larger than one page and warns about a feed above 1 MB', async () => {
    const page = b.page;
    up().set('/big.ics', { body: numberedFeed(101, 10_600) });
    await page.goto(editorUrl({ id: 'big', url: up().url('/big.ics'), name: 'Big' }));
    await waitText(page, '.cal-samples__counter', '1/101');
    await expect(textOf(page, '.cal-editor__meta')).resolves.toMatch(/^101 events·1\.\d MB$/);
    await expect(textOf(page, '.cal-warning')).resolves.toMatch(/Google Calendar may stop importing feeds larger than 1 MB/);
    const next = page.getByRole('button', { name: 'Next sample' });
    for (let i = 2; i <= 101; i += 1) {
      await next.click();
      await waitText(page, '.cal-samples__counter', `${i}/101`);
    }
    await expect(sampleValue(page, 'SUMMARY').textContent()).resolves.toBe('Event 101');
    await expect(next.isDisabled()).resolves.toBe(true);
    await page.getByRole('button', { name: 'Previous sample' }).click();
    await waitText(page, '.cal-samples__counter', '100/101');
    await expect(sampleValue(page, 'SUMMARY').textContent()).resolves.toBe('Event 100');
  });

  it('fits a 360 px phone: list, editor and dialog without horizontal scrolling', async () => {
    const phone = await b.browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    try {
      const page = await phone.newPage();
      await page.goto(url('/calendars'));
      await page.evaluate(
        (list) => localStorage.setItem('calendars:v1', JSON.stringify(list)),
        [{ ...record('phone', 'A calendar with a rather long name for a phone', up().url('/work.ics')), hostedUrl: url('/cal/phone.ics') }],
      );
      const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      await page.reload();
      await page.getByRole('button', { name: /^Delete / }).waitFor();
      await expect(overflow()).resolves.toBeLessThanOrEqual(0);
      await page.goto(editorUrl({ id: 'phone', url: up().url('/work.ics'), name: 'A calendar with a rather long name for a phone' }));
      await waitText(page, '.cal-samples__counter', '1/3');
      await page.getByRole('region', { name: 'Hosted feed' }).waitFor();
      await expect(overflow()).resolves.toBeLessThanOrEqual(0);
      await page.getByRole('button', { name: 'Insert DESCRIPTION', exact: true }).click();
      await page.getByRole('dialog').waitFor();
      await expect(overflow()).resolves.toBeLessThanOrEqual(0);
      const box = await page.getByRole('dialog').boundingBox();
      expect((box?.x ?? -1) >= 0 && (box?.width ?? 999) <= 360).toBe(true);
    } finally {
      await phone.close();
    }
  });
});

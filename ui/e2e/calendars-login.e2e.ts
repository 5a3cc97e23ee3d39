// Sources behind a login (issue 36) in Chromium against the real binary, with an upstream that asks
// for HTTP Basic on loopback: a feed that needs a login said at its login, "Add a login" with a
// username and password read at once, Build & Host storing it and the editor showing "Login saved"
// with Change and Remove, the browser's storage never holding the password (only "set"), a reload
// reading with the saved login, focus kept through each step, axe on the login's states light and
// dark on a phone and a desktop, and nothing moving while the editor with a saved login loads.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page, Request } from 'playwright-core';
import { axe, describeViolations } from './support/axe';
import { useBrowser } from './support/browser';
import { DialogScript } from './calendars-support/dialogs';
import { useCalendarSite } from './calendars-support/site';

const PASSWORD = 'pw-Zq8u3vT-hunter';
const FEED = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Guarded//EN',
  'BEGIN:VEVENT',
  'UID:standup@guarded.test',
  'DTSTAMP:20250101T000000Z',
  'DTSTART:20250102T090000Z',
  'DTEND:20250102T093000Z',
  'SUMMARY:Private standup',
  'END:VEVENT',
  'END:VCALENDAR',
].join('\r\n');

const DEVICES = [
  { name: 'phone', options: { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true } },
  { name: 'desktop', options: { viewport: { width: 1280, height: 800 } } },
] as const;
const SCHEMES = ['light', 'dark'] as const;

interface SentSource {
  url: string;
  auth?: unknown;
}

describe('calendars: a source behind a login', () => {
  const b = useBrowser();
  const { url } = useCalendarSite({});
  let guarded: Server | undefined;
  let feedUrl = '';
  beforeAll(async () => {
    const expected = `Basic ${Buffer.from(`ann:${PASSWORD}`).toString('base64')}`;
    guarded = createServer((request, response) => {
      if (request.headers.authorization !== expected) {
        response.writeHead(401, { 'WWW-Authenticate': 'Basic realm="calendar"', 'Content-Type': 'text/plain' });
        response.end('login needed');
        return;
      }
      response.writeHead(200, { 'Content-Type': 'text/calendar; charset=utf-8', 'Cache-Control': 'no-store' });
      response.end(FEED);
    });
    await new Promise<void>((resolve) => guarded?.listen(0, '127.0.0.1', resolve));
    const address = guarded.address();
    feedUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/private.ics`;
  });
  afterAll(async () => {
    guarded?.closeAllConnections();
    await new Promise<void>((resolve) => (guarded ? guarded.close(() => resolve()) : resolve()));
  });

  const editorUrl = (id: string) => url(`/calendars/new?${new URLSearchParams({ id, url: feedUrl, name: 'Private' }).toString()}`);
  const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '');
  const storage = (page: Page) => page.evaluate(() => JSON.stringify(Object.entries(localStorage)));
  const counter = (page: Page, text: string) =>
    page.waitForFunction((t) => document.querySelector('.cal-samples__counter')?.textContent === t, text, { timeout: 10_000 });
  const nextRead = (page: Page) =>
    page
      .waitForRequest((r: Request) => new URL(r.url()).pathname === '/api/feed' && r.method() === 'POST')
      .then((r) => ({ body: JSON.parse(r.postData() ?? '{}') as { sources?: SentSource[]; calendar?: string }, authorization: r.headers().authorization }));

  /** Opens the editor of a new calendar of the guarded feed, gives it the login and publishes it. */
  async function publishWithLogin(page: Page, id: string) {
    new DialogScript(page);
    await page.goto(editorUrl(id));
    await page.locator('.cal-login .error-text', { hasText: 'this feed needs a login' }).waitFor();
    await page.getByRole('button', { name: 'Add a login to feed 1' }).click();
    await page.getByLabel('Username of feed 1', { exact: true }).fill('ann');
    await page.getByLabel('Password of feed 1', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Password of feed 1', { exact: true }).press('Enter');
    await counter(page, '1/1');
    await page.getByRole('button', { name: 'Build & Host' }).click();
    await page.getByText('Login saved', { exact: true }).waitFor();
  }

  it('gives a login, stores it with Build & Host as "Login saved", and keeps only "set" in the browser', async () => {
    const page = b.page;
    const dialogs = new DialogScript(page);
    await page.goto(editorUrl('private'));
    // The feed asks for a login: said at its login, and the editor offers one.
    await page.locator('.cal-login .error-text', { hasText: 'this feed needs a login' }).waitFor();
    await dialogs.waitFor(1);
    await page.getByRole('button', { name: 'Add a login to feed 1' }).click();
    expect(await focusedId(page)).toBe('cal-source-0-login-username');
    await page.keyboard.type('ann');
    await page.getByLabel('Password of feed 1', { exact: true }).fill(PASSWORD);
    const read = nextRead(page);
    await page.getByLabel('Password of feed 1', { exact: true }).press('Enter');
    // Read with the login given (a calendar of one source), in memory only.
    await expect(read.then((r) => r.body.sources)).resolves.toEqual([{ url: feedUrl, auth: { username: 'ann', password: PASSWORD } }]);
    await counter(page, '1/1');
    expect(await storage(page)).not.toContain(PASSWORD);

    const publish = page.waitForRequest((r) => r.url().endsWith('/api/calendars') && r.method() === 'POST');
    await page.getByRole('button', { name: 'Build & Host' }).click();
    const sent = JSON.parse((await publish).postData() ?? '{}') as { url?: string; sources?: SentSource[] };
    expect(sent.url).toBeUndefined();
    expect(sent.sources).toEqual([{ url: feedUrl, auth: { username: 'ann', password: PASSWORD } }]);
    await page.getByText('Login saved', { exact: true }).waitFor();
    await page.getByRole('region', { name: 'Hosted feed' }).getByText('The live feed matches this editor.').waitFor();
    const kept = await storage(page);
    expect(kept).not.toContain(PASSWORD);
    const calendars = await page.evaluate(() => JSON.parse(localStorage.getItem('calendars:v1') ?? '[]') as { sources?: SentSource[]; hostedUrl?: string }[]);
    expect(calendars[0]?.sources).toEqual([{ url: feedUrl, auth: 'set' }]);
    const hosted = await fetch(calendars[0]?.hostedUrl ?? '');
    expect(await hosted.text()).toContain('Private standup');

    // A reload reads with the saved login, for the calendar's owner (its edit token).
    const again = nextRead(page);
    await page.reload();
    const reread = await again;
    expect(reread.body).toMatchObject({ sources: [{ url: feedUrl, auth: 'set' }], calendar: 'private' });
    expect(reread.authorization).toMatch(/^Bearer /);
    await counter(page, '1/1');
    await page.getByText('Login saved', { exact: true }).waitFor();

    // Change opens the form (the saved login kept meanwhile); Cancel goes back to it.
    await page.getByRole('button', { name: 'Change the login of feed 1' }).click();
    expect(await focusedId(page)).toBe('cal-source-0-login-username');
    await page.getByText('The saved login stays until you give a new one.', { exact: false }).waitFor();
    await page.getByRole('radio', { name: 'Token' }).waitFor();
    await page.getByRole('button', { name: 'Cancel the login of feed 1' }).click();
    expect(await focusedId(page)).toBe('cal-source-0-login-change');
    // Remove: no login any more (a republish without one removes it on the server).
    await page.getByRole('button', { name: 'Remove the login of feed 1' }).click();
    expect(await focusedId(page)).toBe('cal-source-0-login-add');
    expect(await storage(page)).not.toContain(PASSWORD);
  });

  it('keeps the editor with a saved login still while it loads', async () => {
    const context: BrowserContext = await b.browser.newContext({ viewport: { width: 1280, height: 800 }, serviceWorkers: 'block' });
    try {
      const page = await context.newPage();
      await publishWithLogin(page, 'still');
      await context.route(/\/api\//, async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 400));
        await route.continue();
      });
      await page.addInitScript(() => {
        const shifts: { value: number; sources: string[] }[] = [];
        (window as unknown as { __shifts: typeof shifts }).__shifts = shifts;
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries() as unknown as {
            value: number;
            hadRecentInput: boolean;
            sources: { node?: Node; previousRect: DOMRect; currentRect: DOMRect }[];
          }[])
            if (!entry.hadRecentInput)
              shifts.push({
                value: entry.value,
                sources: entry.sources.map((s) => {
                  const el = s.node instanceof Element ? s.node : s.node?.parentElement;
                  return `${el?.tagName ?? '?'}.${el?.className ?? ''} ${JSON.stringify([s.previousRect.y, s.previousRect.height, s.currentRect.y, s.currentRect.height])}`;
                }),
              });
        }).observe({ type: 'layout-shift', buffered: true });
      });
      await page.reload();
      await counter(page, '1/1');
      await page.getByText('Login saved', { exact: true }).waitFor();
      await page.waitForTimeout(1500); // late content (the preview) may still arrive
      const shifts = await page.evaluate(() => (window as unknown as { __shifts: { value: number; sources: string[] }[] }).__shifts);
      const total = shifts.reduce((a, s) => a + s.value, 0);
      expect(total, JSON.stringify(shifts)).toBeLessThan(0.001);
    } finally {
      await context.close();
    }
  });

  for (const device of DEVICES) {
    for (const scheme of SCHEMES) {
      it(`has no axe violations in the login's states on ${device.name}, ${scheme}, and fits the screen`, async () => {
        const context: BrowserContext = await b.browser.newContext({ ...device.options, colorScheme: scheme });
        try {
          const page = await context.newPage();
          await publishWithLogin(page, `login-axe-${device.name}-${scheme}`);
          await page.waitForTimeout(300); // lets transitions settle before judging colours
          let found = describeViolations(`login saved (${device.name}, ${scheme})`, await axe(page));
          expect(found, found.join('\n')).toEqual([]);
          await page.getByRole('button', { name: 'Change the login of feed 1' }).click();
          await page.getByLabel('Token', { exact: true }).check();
          await page.getByLabel('Token of feed 1', { exact: true }).fill('a\tb');
          await page.getByLabel('Token of feed 1', { exact: true }).press('Tab');
          await page.getByText('The token cannot hold tabs', { exact: false }).waitFor();
          await page.waitForTimeout(300);
          found = describeViolations(`login form (${device.name}, ${scheme})`, await axe(page));
          expect(found, found.join('\n')).toEqual([]);
          await expect(page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).resolves.toBeLessThanOrEqual(0);
        } finally {
          await context.close();
        }
      });
    }
  }
});

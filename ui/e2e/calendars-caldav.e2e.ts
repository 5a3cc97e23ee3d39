// The editor's CalDAV picker (calendar tool v4) in Chromium against the real binary and a real
// Radicale on loopback: "Add a CalDAV calendar" opens the account's form (focus on its address),
// an empty form is said at each input, a wrong password at the password, the right one lists the
// account's calendars of events (not its tasks) by name, choosing one adds it as a source of
// its own (kind caldav, with the login) whose events join the samples, the browser keeps no
// password, and Build & Host hosts it; axe on the open picker, light and dark, phone and desktop.
import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page, Request } from 'playwright-core';
import { axe, describeViolations } from './support/axe';
import { useBrowser } from './support/browser';
import { useCalendarSite } from './calendars-support/site';
import { RADICALE_PASSWORD, RADICALE_USER, useRadicale } from './calendars-support/radicale';
import { WORK_FEED } from './calendars-support/upstream';

const DEVICES = [
  { name: 'phone', options: { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true } },
  { name: 'desktop', options: { viewport: { width: 1280, height: 800 } } },
] as const;
const SCHEMES = ['light', 'dark'] as const;
const KEY = 'owner-caldav-key';

/** `YYYYMMDD` of a day `days` from now. */
const day = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '');

const event = (uid: string, summary: string, days: number) =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Hearth tests//EN',
    'BEGIN:VEVENT',
    `UID:${uid}`,
    'DTSTAMP:20260101T000000Z',
    `DTSTART:${day(days)}T090000Z`,
    `DTEND:${day(days)}T100000Z`,
    `SUMMARY:${summary}`,
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');

interface SentSource {
  url: string;
  label?: string;
  kind?: string;
  auth?: unknown;
}

describe('calendars: a CalDAV calendar chosen from an account', () => {
  const b = useBrowser();
  // The site's owner adds their calendar (with the publish key: the owner spends no visitor's
  // allowance of fetches upstream, so one Radicale serves every test of the suite).
  const { url, up } = useCalendarSite({ '/work.ics': { body: WORK_FEED } }, ['--publish-key', KEY]);
  const radicale = useRadicale(async (r) => {
    await r.mkcalendar('/alice/school/', 'School', '#3366CCFF', ['VEVENT']);
    await r.mkcalendar('/alice/chores/', 'Chores', '#999999', ['VTODO']);
    await r.put('/alice/school/play.ics', event('play@school', 'School play', 4));
  });

  const editorUrl = (id: string) => url(`/calendars/new?${new URLSearchParams({ id, url: up().url('/work.ics'), name: 'Family' }).toString()}`);
  const field = (page: Page, label: string) => page.getByLabel(label, { exact: true });
  const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '');
  const waitText = (page: Page, selector: string, expected: string) =>
    page.waitForFunction(([s, e]) => document.querySelector(s)?.textContent === e, [selector, expected] as const, { timeout: 10_000 });

  /** Opens the picker on a new calendar of the work feed and lists the account's calendars. */
  async function listCalendars(page: Page, id: string) {
    await page.addInitScript((key) => localStorage.setItem('site:key', key), KEY);
    await page.goto(editorUrl(id));
    await waitText(page, '.cal-samples__counter', '1/3');
    await page.getByRole('button', { name: 'Add a CalDAV calendar' }).click();
    await field(page, 'Account address').fill(radicale().url('/'));
    await field(page, 'Username').fill(RADICALE_USER);
    await field(page, 'Password').fill(RADICALE_PASSWORD);
    await page.getByRole('button', { name: 'Find my calendars' }).click();
    await page.getByText('One calendar found: choose it to add it.').waitFor();
  }

  it('finds the account’s calendars with its login and adds the chosen one as a source', async () => {
    const page = b.page;
    await page.addInitScript((key) => localStorage.setItem('site:key', key), KEY);
    await page.goto(editorUrl('caldav-add'));
    await waitText(page, '.cal-samples__counter', '1/3');
    const toggle = page.getByRole('button', { name: 'Add a CalDAV calendar' });
    await expect(toggle.getAttribute('aria-expanded')).resolves.toBe('false');
    await toggle.click();
    await expect(toggle.getAttribute('aria-expanded')).resolves.toBe('true');
    expect(await focusedId(page)).toBe(await field(page, 'Account address').getAttribute('id'));

    // Nothing given: said at each input, the first one focused; nothing is asked of the server.
    const asked: string[] = [];
    page.on('request', (r: Request) => {
      if (new URL(r.url()).pathname === '/api/caldav/calendars') asked.push(r.postData() ?? '');
    });
    await page.getByRole('button', { name: 'Find my calendars' }).click();
    await page.getByText('Give the address of your calendar account.').waitFor();
    await page.getByText('Give the username of the account.').waitFor();
    await page.getByText('Give the password (an app-specific password for iCloud).').waitFor();
    await expect(field(page, 'Password').getAttribute('aria-invalid')).resolves.toBe('true');
    expect(await focusedId(page)).toBe(await field(page, 'Account address').getAttribute('id'));
    expect(asked).toEqual([]);

    // A wrong password: the server's words at the password, which gets the focus.
    await field(page, 'Account address').fill(radicale().url('/'));
    await field(page, 'Username').fill(RADICALE_USER);
    await field(page, 'Password').fill('not the password');
    await page.getByRole('button', { name: 'Find my calendars' }).click();
    await page.getByText('The login was refused.').waitFor();
    expect(await focusedId(page)).toBe(await field(page, 'Password').getAttribute('id'));
    const describedBy = (await field(page, 'Password').getAttribute('aria-describedby')) ?? '';
    await expect(page.locator(`[id="${describedBy}"]`).textContent()).resolves.toBe('The login was refused.');

    // The right one: the calendars of events, by name (the to-do list is not one).
    await field(page, 'Password').fill(RADICALE_PASSWORD);
    await expect(page.getByText('The login was refused.').count()).resolves.toBe(0);
    await page.keyboard.press('Enter');
    await page.getByText('One calendar found: choose it to add it.').waitFor();
    const list = page.getByRole('list', { name: 'The account’s calendars' });
    await expect(list.getByRole('listitem').allTextContents()).resolves.toEqual([`School${radicale().url('/alice/school/')}Add`]);
    await expect(page.getByText('Chores').count()).resolves.toBe(0);

    // Chosen: a source of its own, named School, read with its kind and login; its event joins.
    const read = page.waitForRequest((r) => new URL(r.url()).pathname === '/api/feed' && r.method() === 'POST');
    await list.getByRole('button', { name: 'Add School' }).click();
    const sent = JSON.parse((await read).postData() ?? '{}') as { sources: SentSource[] };
    expect(sent.sources).toEqual([
      { url: up().url('/work.ics') },
      { url: radicale().url('/alice/school/'), kind: 'caldav', auth: { username: RADICALE_USER, password: RADICALE_PASSWORD } },
    ]);
    await expect(toggle.getAttribute('aria-expanded')).resolves.toBe('false');
    await expect(page.getByLabel('Address of feed 2', { exact: true }).inputValue()).resolves.toBe(radicale().url('/alice/school/'));
    await expect(page.getByLabel('Label of feed 2 (optional)', { exact: true }).inputValue()).resolves.toBe('School');
    expect(await focusedId(page)).toBe(await page.getByLabel('Address of feed 2', { exact: true }).getAttribute('id'));
    await waitText(page, '.cal-samples__counter', '1/4');

    // Hosted with the login; the browser keeps no password, only that there is a login.
    const publish = page.waitForRequest((r) => r.url().endsWith('/api/calendars') && r.method() === 'POST');
    await page.getByRole('button', { name: 'Build & Host' }).click();
    const published = JSON.parse((await publish).postData() ?? '{}') as { sources?: SentSource[] };
    expect(published.sources?.[1]).toEqual({
      url: radicale().url('/alice/school/'),
      label: 'School',
      kind: 'caldav',
      auth: { username: RADICALE_USER, password: RADICALE_PASSWORD },
    });
    await page.getByRole('region', { name: 'Hosted feed' }).waitFor();
    const everything = await page.evaluate(() => JSON.stringify(Object.entries(localStorage)));
    expect(everything).not.toContain(RADICALE_PASSWORD);
    const saved = await page.evaluate(() => JSON.parse(localStorage.getItem('calendars:v1') ?? '[]') as { sources?: SentSource[] }[]);
    expect(saved[0]?.sources?.[1]).toEqual({ url: radicale().url('/alice/school/'), label: 'School', kind: 'caldav', auth: 'set' });
    const hosted = await (await fetch(url('/cal/caldav-add.ics'))).text();
    expect(hosted).toContain('SUMMARY:School play');

    // Its login is a source's login like any other: stored sealed by the publish, "Login saved" at its row.
    await page.getByText('Login saved', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Change the login of feed 2' }).waitFor();
    // Reopened, the editor reads the CalDAV calendar with the saved login (its owner's edit token), no password given again.
    const reread = page.waitForRequest((r) => new URL(r.url()).pathname === '/api/feed' && r.method() === 'POST');
    await page.reload();
    const again = JSON.parse((await reread).postData() ?? '{}') as { sources: SentSource[]; calendar?: string };
    expect(again.sources[1]).toEqual({ url: radicale().url('/alice/school/'), kind: 'caldav', auth: 'set' });
    expect(again.calendar).toBe('caldav-add');
    await waitText(page, '.cal-samples__counter', '1/4');
    await page.getByText('Login saved', { exact: true }).waitFor();
  });

  for (const device of DEVICES) {
    for (const scheme of SCHEMES) {
      it(`has no axe violations with the account's calendars listed on ${device.name}, ${scheme}, and fits the screen`, async () => {
        const context: BrowserContext = await b.browser.newContext({ ...device.options, colorScheme: scheme });
        try {
          const page = await context.newPage();
          await listCalendars(page, `caldav-axe-${device.name}-${scheme}`);
          // An error at an input too.
          await field(page, 'Username').fill('');
          await page.getByRole('button', { name: 'Find my calendars' }).click();
          await page.getByText('Give the username of the account.').waitFor();
          await page.waitForTimeout(300); // lets transitions settle before judging colours
          const found = describeViolations(`CalDAV picker (${device.name}, ${scheme})`, await axe(page));
          expect(found, found.join('\n')).toEqual([]);
          await expect(page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).resolves.toBeLessThanOrEqual(0);
        } finally {
          await context.close();
        }
      });
    }
  }
});

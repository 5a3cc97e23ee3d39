// Issue 34, item 4, in Chromium against the real binary: feedback on the calendar side. Right
// after Build & Host the health tells the fetch it made; on a phone Build & Host brings its banner
// into view with the focus; the list marks a feed that fails at once ("1 feed failing"), before
// the day-long flag; a kept copy is dated in words, not a raw HTTP date; a time with a TZID names
// its zone. axe on the list with the marker and the editor with a kept copy, light and dark,
// phone and desktop.
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { axe, describeViolations } from './support/axe';
import { useBrowser } from './support/browser';
import { DialogScript } from './calendars-support/dialogs';
import { useCalendarSite } from './calendars-support/site';
import { WORK_FEED } from './calendars-support/upstream';

const NEVER_FETCHED = 'No fetch of the source has been recorded yet.';
const BERLIN_FEED = WORK_FEED.replace('DTSTART:20250102T100000Z', 'DTSTART;TZID=Europe/Berlin:20250102T100000').replace(
  'DTEND:20250102T110000Z',
  'DTEND;TZID=Europe/Berlin:20250102T110000',
);
const PHONE = { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true };

/** Whether the whole element is inside the viewport. */
async function inView(page: Page, locator: Locator): Promise<boolean> {
  const box = await locator.boundingBox();
  const viewport = page.viewportSize();
  if (!box || !viewport) return false;
  return box.y >= 0 && box.y + Math.min(box.height, viewport.height) <= viewport.height;
}

describe('calendars: feedback where it is looked for', () => {
  const b = useBrowser();
  // A one-second TTL: a poll a second later asks upstream again.
  const { url, up } = useCalendarSite(
    {
      '/work.ics': { body: WORK_FEED },
      '/home.ics': { body: WORK_FEED.replaceAll('@hearth.test', '@home.test') },
      '/flaky.ics': { body: WORK_FEED.replaceAll('@hearth.test', '@flaky.test') },
      '/stale.ics': { body: WORK_FEED.replaceAll('@hearth.test', '@stale.test') },
      '/berlin.ics': { body: BERLIN_FEED },
    },
    ['--feed-ttl', '1s'],
  );
  const editorUrl = (id: string, path: string, name: string) => url(`/calendars/new?${new URLSearchParams({ id, url: up().url(path), name }).toString()}`);
  const waitCounter = (page: Page, text: string) =>
    page.waitForFunction((t) => document.querySelector('.cal-samples__counter')?.textContent === t, text, { timeout: 10_000 });
  const healthBody = (page: Page) => page.locator('.cal-health__body');

  it('tells the fetch Build & Host made at once, never that none was recorded', async () => {
    const page = b.page;
    await page.goto(editorUrl('fetched', '/work.ics', 'Fetched'));
    await waitCounter(page, '1/3');
    await page.getByRole('button', { name: 'Build & Host' }).click();
    await page.getByRole('region', { name: 'Hosted feed' }).waitFor();
    await page.waitForFunction(() => document.querySelector('.cal-health__body')?.getAttribute('aria-busy') === 'false');
    await healthBody(page)
      .getByText(/^The source was last fetched just now: 3 events, /)
      .waitFor();
    await expect(healthBody(page).innerText()).resolves.not.toContain(NEVER_FETCHED);

    // A second Build & Host checks again (the section says nothing older than the publish).
    const statusChecks: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/api/calendars/fetched/status')) statusChecks.push(r.url());
    });
    await page.locator('#cal-map-SUMMARY').fill('Work: ${SUMMARY}');
    await page.getByRole('button', { name: 'Build & Host' }).click();
    await page.getByText('The live feed matches this editor.').waitFor();
    await page.waitForFunction(() => document.querySelector('.cal-health__body')?.getAttribute('aria-busy') === 'false');
    expect(statusChecks.length).toBeGreaterThan(0);
  });

  it('on a phone, brings the banner into view with the focus after Build & Host', async () => {
    const context = await b.browser.newContext(PHONE);
    try {
      const page = await context.newPage();
      await page.goto(editorUrl('phone-host', '/work.ics', 'Phone'));
      await waitCounter(page, '1/3');
      // Two feeds: a header tall enough to push the banner below the screen.
      await page.getByRole('button', { name: 'Add another feed' }).click();
      await page.getByLabel('Address of feed 2').fill(up().url('/home.ics'));
      await page.getByLabel('Address of feed 2').press('Enter');
      await waitCounter(page, '1/6');
      const host = page.getByRole('button', { name: 'Build & Host' });
      await host.scrollIntoViewIfNeeded();
      await host.tap();
      const banner = page.getByRole('region', { name: 'Hosted feed' });
      await banner.waitFor();
      await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Hosted feed');
      await expect(inView(page, banner)).resolves.toBe(true);
      // It was below the fold: the button is out of view now.
      await expect(inView(page, host)).resolves.toBe(false);
    } finally {
      await context.close();
    }
  });

  it('marks a calendar whose feed fails in the list at once, with the failure in words', async () => {
    const page = b.page;
    await page.goto(editorUrl('flaky', '/flaky.ics', 'Flaky'));
    await waitCounter(page, '1/3');
    await page.getByRole('button', { name: 'Build & Host' }).click();
    const banner = page.getByRole('region', { name: 'Hosted feed' });
    const hosted = (await banner.getByRole('link').first().getAttribute('href')) ?? '';
    up().set('/flaky.ics', { status: 404, body: 'gone' });
    await page.waitForTimeout(1100);
    // A subscriber's poll refreshes the copy in the background; upstream answers 404.
    await fetch(hosted).then((r) => r.text());
    const line = page.getByRole('listitem').filter({ hasText: 'Flaky' }).locator('.cal-health-line');
    for (let tries = 0; ; tries += 1) {
      await page.goto(url('/calendars'));
      await line.waitFor();
      await page.waitForFunction(() => !document.querySelector('.cal-health-line')?.textContent.startsWith('Checking'));
      if ((await line.innerText()).includes('feed failing')) break;
      if (tries > 20) throw new Error(`not marked: ${await line.innerText()}`);
      await page.waitForTimeout(250);
    }
    await expect(line.locator('.cal-health__failing').innerText()).resolves.toMatch(/^1 feed failing/);
    await expect(line.innerText()).resolves.toMatch(/The source failed once at \d\d:\d\d: the feed's server answered HTTP 404/);
    // Not the day-long flag yet.
    await expect(line.locator('.cal-health__flag').count()).resolves.toBe(0);
  });

  it('dates a kept copy in words when the feed cannot be fetched, and names the zone of a TZID time', async () => {
    const page = b.page;
    const dialogs = new DialogScript(page);
    await page.goto(editorUrl('stale', '/stale.ics', 'Stale'));
    await waitCounter(page, '1/3');
    up().set('/stale.ics', { status: 500, body: 'down' });
    // Refetch takes a copy up to 5 s old without asking upstream.
    await page.waitForTimeout(5200);
    await page.getByRole('button', { name: 'Refetch' }).click();
    const note = page.getByText('The feed could not be fetched just now', { exact: false });
    await note.waitFor();
    await expect(note.innerText()).resolves.toMatch(/showing the copy fetched at \d\d:\d\d \((just now|1 minute ago)\)\.$/);
    await expect(note.innerText()).resolves.not.toContain('GMT');
    expect(dialogs.seen).toEqual([]);

    await page.goto(editorUrl('berlin', '/berlin.ics', 'Berlin'));
    await waitCounter(page, '1/3');
    const readable = page.locator('.cal-fields__readable');
    await expect(readable.allInnerTexts()).resolves.toEqual(expect.arrayContaining(['Thu 2 Jan 2025, 10:00 Europe/Berlin']));
    await expect(readable.allInnerTexts()).resolves.not.toEqual(expect.arrayContaining([expect.stringContaining('(local time)')]));
  });

  it('has no axe violations on the list with a failing feed and the editor with a kept copy, light and dark, phone and desktop', async () => {
    // A calendar published here and failing now, as the list shows it.
    const page = b.page;
    await page.goto(editorUrl('axe-flaky', '/work.ics', 'Axe flaky'));
    await waitCounter(page, '1/3');
    await page.getByRole('button', { name: 'Build & Host' }).click();
    await page.getByRole('region', { name: 'Hosted feed' }).waitFor();
    const stored = await page.evaluate(() => localStorage.getItem('calendars:v1') ?? '[]');
    up().set('/work.ics', { status: 404, body: 'gone' });
    try {
      // Past the feed's TTL for the poll, and past the 5 s a Refetch takes a copy for.
      await page.waitForTimeout(5200);
      await fetch(url('/cal/axe-flaky.ics')).then((r) => r.text());
      await page.waitForTimeout(300);
      const found: string[] = [];
      for (const device of [PHONE, { viewport: { width: 1280, height: 800 } }]) {
        for (const colorScheme of ['light', 'dark'] as const) {
          const context = await b.browser.newContext({ ...device, colorScheme });
          try {
            const p = await context.newPage();
            await p.goto(url('/calendars'));
            await p.evaluate((list) => localStorage.setItem('calendars:v1', list), stored);
            await p.reload();
            await p.locator('.cal-health__failing').waitFor();
            found.push(...describeViolations(`list (${device.viewport.width}px, ${colorScheme})`, await axe(p)));
            await p.getByRole('link', { name: 'Edit Axe flaky' }).click();
            await waitCounter(p, '1/3');
            await p.getByRole('button', { name: 'Refetch' }).click();
            await p.getByText('The feed could not be fetched just now', { exact: false }).waitFor();
            await p.waitForTimeout(300);
            found.push(...describeViolations(`editor (${device.viewport.width}px, ${colorScheme})`, await axe(p)));
          } finally {
            await context.close();
          }
        }
      }
      expect(found, found.join('\n')).toEqual([]);
    } finally {
      up().set('/work.ics', { body: WORK_FEED });
    }
  });
});

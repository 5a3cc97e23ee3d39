// Issue 34, item 3, in Chromium against the real binary: a merged calendar of two feeds on one
// host, published with Build & Host after the editor read them. When its second feed fails, the
// editor's health names that feed by number, label and address (not the host both share); the
// owner page lists every source, marks the failing one, and its storage meter counts both feeds'
// stored copies. axe on the owner page with the sources listed, light and dark, phone and desktop.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { axe, describeViolations } from './support/axe';
import { useBrowser } from './support/browser';
import { useCalendarSite } from './calendars-support/site';
import { WORK_FEED } from './calendars-support/upstream';

const KEY = 'owner-s3cret';
const LAB_FEED = WORK_FEED.replaceAll('@hearth.test', '@lab.test').replace('X-WR-CALNAME:Work', 'X-WR-CALNAME:Lab');

describe('a merged calendar whose second feed fails', () => {
  const b = useBrowser();
  // A one-second TTL: the hosted feed asks upstream again on the first poll a second later.
  const { url, up } = useCalendarSite({ '/work.ics': { body: WORK_FEED }, '/lab.ics': { body: LAB_FEED } }, ['--publish-key', KEY, '--feed-ttl', '1s']);
  const waitCounter = (page: Page, text: string) =>
    page.waitForFunction((t) => document.querySelector('.cal-samples__counter')?.textContent === t, text, { timeout: 10_000 });
  const health = (page: Page) => page.getByRole('region', { name: 'Feed health' });

  /** Builds and hosts "Both" (feeds Work and Lab of one host) through the editor; its hosted address. */
  async function publishBoth(page: Page, id: string): Promise<string> {
    await page.goto(url('/calendars'));
    await page.evaluate((key) => localStorage.setItem('site:key', key), KEY);
    await page.goto(url(`/calendars/new?${new URLSearchParams({ id, url: up().url('/work.ics'), name: 'Both' }).toString()}`));
    await waitCounter(page, '1/3');
    await page.getByRole('button', { name: 'Add another feed' }).click();
    await page.getByLabel('Label of feed 1').fill('Work');
    await page.getByLabel('Address of feed 2').fill(up().url('/lab.ics'));
    await page.getByLabel('Label of feed 2').fill('Lab');
    await page.getByLabel('Label of feed 2').press('Enter');
    await waitCounter(page, '1/6');
    await page.getByRole('button', { name: 'Build & Host' }).click();
    const banner = page.getByRole('region', { name: 'Hosted feed' });
    await banner.waitFor();
    return (await banner.getByRole('link').first().getAttribute('href')) ?? '';
  }

  it('names the failing feed by its number, label and address; the owner page lists every source and counts both copies', async () => {
    const page = b.page;
    const hosted = await publishBoth(page, 'both');
    up().set('/lab.ics', { status: 404, body: 'gone' });
    await page.waitForTimeout(1100);
    // A subscriber's poll: served from the copies, and both feeds refreshed in the background.
    await fetch(hosted, { headers: { 'User-Agent': 'Google-Calendar-Importer' } }).then((r) => r.text());
    const failure = `Feed 2 “Lab” (${up().url('/lab.ics')}) failed once at`;
    for (let tries = 0; ; tries += 1) {
      await health(page).getByRole('button', { name: 'Check again' }).click();
      await page.waitForFunction(() => document.querySelector('.cal-health__body')?.getAttribute('aria-busy') === 'false');
      const text = await health(page).innerText();
      if (text.includes(failure)) break;
      if (tries > 20) throw new Error(`no failure named in:\n${text}`);
      await page.waitForTimeout(250);
    }
    const text = await health(page).innerText();
    expect(text).not.toContain('The feed from');
    expect(text).toMatch(/failed once at \d\d:\d\d: the feed's server answered HTTP 404/);

    await page.goto(url('/owner'));
    const both = page.getByRole('region', { name: 'Calendars', exact: true }).getByRole('article', { name: 'Both' });
    const sources = both.locator('.owner-sources > li');
    await sources.nth(1).waitFor();
    await expect(sources.allInnerTexts()).resolves.toEqual([
      `Feed 1 “Work”\n${up().url('/work.ics')}`,
      expect.stringMatching(new RegExp(`^Feed 2 “Lab”\\s*Failing\\s*:?\\s*${up().url('/lab.ics').replaceAll('.', '\\.')}$`)) as unknown as string,
    ]);
    await both.getByText(failure, { exact: false }).waitFor();
    // Both stored copies count: the work feed's and the lab feed's.
    const total = Buffer.byteLength(WORK_FEED) + Buffer.byteLength(LAB_FEED);
    const stored = page.getByRole('region', { name: 'Calendar feeds' }).locator('.owner-usage__row', { hasText: 'Stored copies' });
    await expect(stored.locator('.owner-usage__text').innerText()).resolves.toMatch(new RegExp(`^${(total / 1024).toFixed(1).replace('.', '\\.')} KB of `));
  });

  it('has no axe violations on the owner page with the sources listed, light and dark, phone and desktop', async () => {
    await publishBoth(b.page, 'both-axe');
    const found: string[] = [];
    for (const device of [{ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true }, { viewport: { width: 1280, height: 800 } }]) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const context = await b.browser.newContext({ ...device, colorScheme });
        try {
          const page = await context.newPage();
          await page.goto(url('/calendars'));
          await page.evaluate((key) => localStorage.setItem('site:key', key), KEY);
          await page.goto(url('/owner'));
          await page.locator('.owner-sources > li').nth(1).waitFor();
          await page.waitForTimeout(300);
          found.push(...describeViolations(`owner (${device.viewport.width}px, ${colorScheme})`, await axe(page)));
        } finally {
          await context.close();
        }
      }
    }
    expect(found, found.join('\n')).toEqual([]);
  });
});

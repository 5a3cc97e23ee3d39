// The owner page (/owner, issue 23) in Chromium against the real binary: on a site with a publish
// key it asks for the key (the one rule of lib/siteKey.ts), then shows the self-check, a published
// calendar with the app that polled it, sync's and the feeds' use of their quotas and the backups;
// "Check again" from the keyboard says when it checked; axe finds nothing, light and dark, on a
// phone and a desktop. On a site without a key the page does not exist and nothing asks.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { axe, describeViolations } from './support/axe';
import { useBrowser } from './support/browser';
import { useServer } from './support/server';
import { DialogScript } from './calendars-support/dialogs';
import { useCalendarSite } from './calendars-support/site';
import { WORK_FEED } from './calendars-support/upstream';

const KEY = 'owner-s3cret';
const SECTIONS = ['Checks', 'Calendars', 'Sync', 'Calendar feeds', 'Backups', 'Replication', 'Notifications', 'Site'];

const DEVICES = [
  { name: 'phone', options: { viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true } },
  { name: 'desktop', options: { viewport: { width: 1280, height: 800 } } },
] as const;

describe('the owner page', () => {
  const b = useBrowser();
  const { url, up } = useCalendarSite({ '/work.ics': { body: WORK_FEED } }, ['--publish-key', KEY]);
  const unkeyed = useServer();

  const section = (page: Page, name: string) => page.getByRole('region', { name, exact: true });

  /** Publishes a calendar as the editor would, and polls its hosted feed as Google Calendar. */
  async function publishAndPoll(id: string, name: string): Promise<string> {
    const answer = await fetch(url('/api/calendars'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Publish-Key': KEY },
      body: JSON.stringify({ id, name, url: up().url('/work.ics'), mapping: {} }),
    });
    expect(answer.ok).toBe(true);
    const { hostedUrl } = (await answer.json()) as { hostedUrl: string };
    const poll = await fetch(hostedUrl, { headers: { 'User-Agent': 'Google-Calendar-Importer' } });
    expect(poll.status).toBe(200);
    await poll.text();
    return new URL(hostedUrl).pathname;
  }

  it('asks for the key, then shows how the site is doing; Check again checks again', async () => {
    const feedPath = await publishAndPoll('owner-work', 'Work');
    const page = b.page;
    const dialogs = new DialogScript(page);

    // No key kept yet: the page asks; a wrong key is refused and asked for again.
    dialogs.answer('wrong', KEY);
    await page.goto(url('/owner'));
    await page.getByRole('heading', { level: 1, name: 'Owner' }).waitFor();
    await section(page, 'Backups').waitFor();
    const asked = await dialogs.waitFor(2);
    expect(asked.map((d) => d.type)).toEqual(['prompt', 'prompt']);
    expect(asked[0]?.message).toMatch(/publish key/i);
    expect(asked[1]?.message).toMatch(/not accepted/i);
    await expect(page.evaluate(() => localStorage.getItem('site:key'))).resolves.toBe(KEY);
    await expect(page.title()).resolves.toBe('Owner');

    // Every section, each a region named by its heading.
    const headings = await page.getByRole('heading', { level: 2 }).allInnerTexts();
    expect(headings).toEqual(SECTIONS);

    // The self-check: a sentence, then one row per check with its status in words.
    const checks = section(page, 'Checks');
    await expect(checks.locator('p').first().innerText()).resolves.toMatch(/^(All \d+ checks pass|Of \d+ checks, .+|The one check .+)\.$/);
    const rows = await checks.getByRole('listitem').allInnerTexts();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row).toMatch(/^(OK|Warning|Failing|Unknown)\s*:?\s*\S/);

    // The published calendar: its hosted feed, its source, and the app that polled it.
    const work = section(page, 'Calendars').getByRole('article', { name: 'Work' });
    await expect(work.getByRole('link', { name: feedPath }).getAttribute('href')).resolves.toBe(feedPath);
    await work.getByText(up().url('/work.ics')).waitFor();
    await work.getByText(/^Google Calendar last fetched this feed just now/).waitFor();
    await work.getByText(/^The source was last fetched .+: 3 events/).waitFor();

    // Use against the quotas, in words and as meters.
    const sync = section(page, 'Sync');
    for (const label of ['Vaults', 'Shared decks', 'Storage']) await sync.getByText(label, { exact: true }).waitFor();
    await expect(sync.getByRole('meter', { name: 'Vaults' }).count()).resolves.toBe(1);
    await sync
      .getByText(/^\d+ of [\d,]+ \((\d+%|under 1%)\)$/)
      .first()
      .waitFor();
    const feeds = section(page, 'Calendar feeds');
    await feeds.getByText(/^1 of [\d,]+ \((\d+%|under 1%)\)$/).waitFor();
    await expect(feeds.getByRole('meter', { name: 'Stored copies' }).count()).resolves.toBe(1);

    // Backups (on by default: every day, seven kept; the first a minute after the start).
    const backups = section(page, 'Backups');
    await backups.getByText('A backup is made every day; the last 7 are kept.').waitFor();
    await backups.getByText('Last run', { exact: true }).waitFor();
    await backups
      .getByText(/^(No backup has been made yet\.|hearth-.+)$/)
      .first()
      .waitFor();

    // Replication: off on this site, and what that means.
    await section(page, 'Replication')
      .getByText(/^Not replicated: what was written since the last backup would be lost with the disk\./)
      .waitFor();

    // Check again, from the keyboard: the polite line says when it checked.
    const checked = page.locator('.owner__checked');
    await expect(checked.getAttribute('aria-live')).resolves.toBe('polite');
    await expect(checked.innerText()).resolves.toMatch(/^Checked at \d{2}:\d{2}:\d{2}\.$/);
    const requests: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/api/owner')) requests.push(request.headers()['x-publish-key'] ?? '');
    });
    await page.evaluate(() => (document.querySelector('.owner__checked') as HTMLElement).replaceChildren());
    await page.getByRole('button', { name: 'Check again' }).focus();
    await page.keyboard.press('Enter');
    await page.getByText(/^Checked at \d{2}:\d{2}:\d{2}\.$/).waitFor();
    expect(requests).toEqual([KEY]);
    // The kept key asks nothing more; nothing links to the page.
    expect(dialogs.seen).toHaveLength(2);
    for (const path of ['/', '/calendars', '/owner']) {
      await page.goto(url(path));
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await expect(page.locator('a[href$="/owner"]').count()).resolves.toBe(0);
    }
  });

  it('says what it needs when the prompt is cancelled, and asks again on the button', async () => {
    const page = b.page;
    const dialogs = new DialogScript(page);
    dialogs.answer(false);
    await page.goto(url('/owner'));
    await page.getByText("This page needs the site's publish key.").waitFor();
    await expect(page.getByRole('region', { name: 'Checks' }).count()).resolves.toBe(0);
    const found = describeViolations('owner, no key', await axe(page));
    expect(found, found.join('\n')).toEqual([]);
    dialogs.answer(KEY);
    await page.getByRole('button', { name: 'Enter the publish key' }).click();
    await section(page, 'Checks').waitFor();
    expect(dialogs.seen).toHaveLength(2);
  });

  it('has no axe violations, light and dark, on a phone and a desktop', async () => {
    await publishAndPoll('owner-axe', 'Club');
    const found: string[] = [];
    for (const device of DEVICES) {
      for (const scheme of ['light', 'dark'] as const) {
        const context = await b.browser.newContext({ ...device.options, colorScheme: scheme });
        try {
          await context.addInitScript((key: string) => localStorage.setItem('site:key', key), KEY);
          const page = await context.newPage();
          await page.goto(url('/owner'));
          await section(page, 'Backups').waitFor();
          await page.waitForTimeout(300); // lets transitions settle before judging colours
          found.push(...describeViolations(`owner, ${device.name}, ${scheme}`, await axe(page)));
          // Nothing wider than the screen.
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          expect(overflow, `horizontal overflow on ${device.name}`).toBeLessThanOrEqual(0);
        } finally {
          await context.close();
        }
      }
    }
    expect(found, found.join('\n')).toEqual([]);
  });

  it('does not exist on a site without a publish key, and asks nothing', async () => {
    const answer = await fetch(unkeyed('/api/owner'));
    expect(answer.status).toBe(404);
    const page = b.page;
    const dialogs = new DialogScript(page);
    await page.goto(unkeyed('/owner'));
    await page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    await page.getByText('There is nothing at this address.').waitFor();
    await expect(page.title()).resolves.toBe('Page not found');
    await expect(page.getByRole('heading', { name: 'Owner' }).count()).resolves.toBe(0);
    expect(dialogs.seen).toEqual([]);
  });
});

// A hosted calendar's health in words (issue 23) in Chromium against the real binary, with an
// upstream ICS server on loopback: publish through the editor, poll the hosted feed as real
// calendar apps do (their own user agents), read what the editor and the list say of it, make the
// source fail and read that too; the room kept for the lines while they load (the same whatever
// the answer: more lines than fit are folded), and axe on both screens with the lines showing,
// light and dark.
import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { axe, describeViolations } from './support/axe';
import { useBrowser } from './support/browser';
import { DialogScript } from './calendars-support/dialogs';
import { useCalendarSite } from './calendars-support/site';
import { WORK_FEED } from './calendars-support/upstream';

/** What the calendar apps send when they poll a subscribed feed. */
const AGENTS = {
  google: 'Google-Calendar-Importer',
  apple: 'iOS/17.4 (21E219) dataaccessd/1.0',
  thunderbird: 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Thunderbird/128.0',
} as const;

const FEED = '/health.ics';

describe('calendars: the health of a hosted feed', () => {
  const b = useBrowser();
  // A one-second TTL: the hosted feed asks upstream again on the first poll a second later.
  const { url, up } = useCalendarSite({ [FEED]: { body: WORK_FEED } }, ['--feed-ttl', '1s']);

  /** Polls the hosted feed as the app with this user agent would. */
  async function poll(hostedUrl: string, agent: string) {
    const answer = await fetch(hostedUrl, { headers: { 'User-Agent': agent } });
    expect(answer.status).toBe(200);
    await answer.text();
  }

  const healthOf = (page: Page) => page.getByRole('region', { name: 'Feed health' });

  /** Presses "Check again" and waits for the answer. */
  async function checkAgain(page: Page) {
    const body = healthOf(page).locator('.cal-health__body');
    await healthOf(page).getByRole('button', { name: 'Check again' }).click();
    await page.waitForFunction(() => document.querySelector('.cal-health__body')?.getAttribute('aria-busy') === 'false');
    return (await body.innerText()).split('\n');
  }

  /** The height of `selector` while the status answer is held back, then once it is in. */
  async function heightsWhileLoading(context: BrowserContext, page: Page, path: string, selector: string, answered: RegExp) {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await context.route(/\/api\/calendars\/[^/]+\/status$/, async (route) => {
      await held;
      await route.continue();
    });
    try {
      await page.goto(url(path));
      await page
        .getByText(/^Checking (how )?this feed/)
        .first()
        .waitFor();
      const before = await page.locator(selector).first().boundingBox();
      release();
      await page.locator(selector).first().getByText(answered).waitFor();
      const after = await page.locator(selector).first().boundingBox();
      return { before: before?.height, after: after?.height };
    } finally {
      await context.unroute(/\/api\/calendars\/[^/]+\/status$/);
    }
  }

  it('tells which apps poll the hosted feed, then that its source failed; nothing moves as the words come', async () => {
    const page = b.page;
    const dialogs = new DialogScript(page);
    const statusRequests: string[] = [];
    page.on('request', (request) => {
      if (/\/api\/calendars\/[^/]+\/status$/.test(request.url())) statusRequests.push(new URL(request.url()).pathname);
    });

    // A calendar kept only in this browser: never asked about.
    await page.goto(url('/calendars'));
    dialogs.answer(up().url(FEED), 'Local only');
    await page.getByRole('button', { name: 'Add Calendar' }).click();
    await page.waitForURL(/\/calendars\/new\?/);
    await page.locator('.cal-samples__counter', { hasText: '1/3' }).waitFor();
    await expect(healthOf(page).count()).resolves.toBe(0);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(url('/calendars'));

    // Another, published through the editor: its health shows under the hosted address.
    dialogs.answer(up().url(FEED), 'Club');
    await page.getByRole('button', { name: 'Add Calendar' }).click();
    await page.waitForURL(/\/calendars\/new\?/);
    await page.locator('.cal-samples__counter', { hasText: '1/3' }).waitFor();
    await page.getByRole('button', { name: 'Build & Host' }).click();
    const banner = page.getByRole('region', { name: 'Hosted feed' });
    await banner.waitFor();
    const hostedUrl = (await banner.getByRole('link').getAttribute('href')) ?? '';
    expect(hostedUrl).toMatch(/\/cal\/[0-9a-f-]{36}\.ics$/);
    const id = /\/cal\/([^/]+)\.ics$/.exec(hostedUrl)?.[1] ?? '';
    const editorPath = new URL(page.url()).pathname + new URL(page.url()).search;
    await healthOf(page).getByText('No calendar app has fetched this feed yet.').waitFor();
    expect(statusRequests.every((path) => path === `/api/calendars/${id}/status`)).toBe(true);

    // The room kept while the check runs is the room its usual lines take: nothing below moves.
    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 375, height: 740 },
    ]) {
      await page.setViewportSize(viewport);
      const editor = await heightsWhileLoading(b.context, page, editorPath, '.cal-health', /No calendar app has fetched this feed yet\./);
      expect(editor.after, `editor at ${viewport.width}px`).toBe(editor.before);
      const list = await heightsWhileLoading(b.context, page, '/calendars', '.cal-item:has(.cal-health-line)', /No calendar app has fetched this feed yet\./);
      expect(list.after, `list at ${viewport.width}px`).toBe(list.before);
    }
    await page.setViewportSize({ width: 1280, height: 800 });

    // Three apps poll the hosted feed, each with its own user agent.
    await poll(hostedUrl, AGENTS.google);
    await poll(hostedUrl, AGENTS.apple);
    await poll(hostedUrl, AGENTS.thunderbird);

    await page.goto(url(editorPath));
    const health = healthOf(page);
    await health.getByText(/^The source was last fetched .+: 3 events/).waitFor();
    await health.getByText(/^Also fetched by /).waitFor();
    await expect(health.getByText('No calendar app has fetched this feed yet.').count()).resolves.toBe(0);
    // The source and three apps are more lines than the room kept: the latest app gets its line,
    // and the last line names the other two.
    const APP = '(Google Calendar|Apple Calendar|Thunderbird)';
    const lines = await health.getByRole('listitem').allInnerTexts();
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(new RegExp(`^${APP} last fetched this feed just now`));
    expect(lines[2]).toMatch(new RegExp(`^Also fetched by ${APP} and ${APP}\\.$`));
    for (const app of ['Google Calendar', 'Apple Calendar', 'Thunderbird']) expect(lines.join(' ')).toContain(app);

    // With those lines too, the section keeps the height it had while the check ran, and they fit
    // in it without scrolling, on a desktop and on a phone.
    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 375, height: 740 },
    ]) {
      await page.setViewportSize(viewport);
      const editor = await heightsWhileLoading(b.context, page, editorPath, '.cal-health', /^Also fetched by /);
      expect(editor.after, `editor with three apps at ${viewport.width}px`).toBe(editor.before);
      const body = page.locator('.cal-health__body');
      const fits = await body.evaluate((element) => element.scrollHeight <= element.clientHeight);
      expect(fits, `the lines fit at ${viewport.width}px`).toBe(true);
      await expect(body.getAttribute('tabindex')).resolves.toBeNull();
    }
    await page.setViewportSize({ width: 1280, height: 800 });

    // The list: one line for the hosted calendar, nothing (and no request) for the local one.
    statusRequests.length = 0;
    await page.goto(url('/calendars'));
    const club = page.getByRole('listitem').filter({ hasText: 'Club' });
    await club.locator('.cal-health-line', { hasText: /last fetched this feed just now/ }).waitFor();
    const local = page.getByRole('listitem').filter({ hasText: 'Local only' });
    await expect(local.locator('.cal-health-line').count()).resolves.toBe(0);
    expect(statusRequests).toEqual([`/api/calendars/${id}/status`]);
    await expect(page.getByText('Source failing').count()).resolves.toBe(0);

    // The source fails: the next poll after the TTL asks upstream again and keeps the good copy.
    up().set(FEED, { status: 404, body: 'gone' });
    await page.goto(url(editorPath));
    await health.getByText(/^Also fetched by /).waitFor();
    const failing = (lines: string[]) => lines.some((line) => /^The source (failed|has failed)/.test(line));
    await expect
      .poll(
        async () => {
          await poll(hostedUrl, AGENTS.google);
          // The refetch may finish after the poll's answer: look a few times before polling again,
          // so the first failure is seen before a second one can happen.
          for (let look = 0; look < 5; look += 1) {
            if (failing(await checkAgain(page))) return true;
            await page.waitForTimeout(200);
          }
          return false;
        },
        { timeout: 20_000, interval: 100 },
      )
      .toBe(true);
    await health.getByText(/^The source failed once at \d{2}:\d{2}/).waitFor({ timeout: 1000 });
    await health.getByText(/^Subscribers still get the (copy from|last good copy)/).waitFor();
    // Failing, the source takes two lines and the three apps fold into the last one.
    await health.getByText(new RegExp(`^${APP} last fetched this feed .+ Also fetched by ${APP} and ${APP}\\.$`)).waitFor();
    await expect(health.getByRole('listitem').count()).resolves.toBe(3);
    // However long the server's reason, the box keeps its height (a reason too long for it scrolls).
    for (const viewport of [
      { width: 1280, height: 800 },
      { width: 375, height: 740 },
    ]) {
      await page.setViewportSize(viewport);
      const editor = await heightsWhileLoading(b.context, page, editorPath, '.cal-health', /^The source (failed once|has failed)/);
      expect(editor.after, `failing editor at ${viewport.width}px`).toBe(editor.before);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    // The hosted feed still serves the last good copy.
    expect((await (await fetch(hostedUrl)).text()).split('\r\n')).toContain('SUMMARY:Lunch at the Cafe');
    expect(dialogs.seen.filter((d) => d.type === 'alert')).toEqual([]);

    // axe on the editor and the list with the lines showing, light and dark.
    const stored = await page.evaluate(() => localStorage.getItem('calendars:v1') ?? '[]');
    const found: string[] = [];
    for (const scheme of ['light', 'dark'] as const) {
      const context = await b.browser.newContext({ colorScheme: scheme });
      try {
        await context.addInitScript((calendars: string) => localStorage.setItem('calendars:v1', calendars), stored);
        const themed = await context.newPage();
        await themed.goto(url(editorPath));
        await healthOf(themed)
          .getByText(/^The source (failed once|has failed)/)
          .waitFor();
        await themed.waitForTimeout(300); // lets transitions settle before judging colours
        found.push(...describeViolations(`editor, ${scheme}`, await axe(themed)));
        await themed.goto(url('/calendars'));
        // Failing for less than a day: the list says so at once ("1 feed failing"), the failure in
        // words (by now the 1 s TTL may have failed it again, as the editor's wait above allows).
        await themed.locator('.cal-health-line', { hasText: /^1 feed failing:?\s*The source (failed once|has failed)/ }).waitFor();
        await themed.waitForTimeout(300);
        found.push(...describeViolations(`list, ${scheme}`, await axe(themed)));
      } finally {
        await context.close();
      }
    }
    expect(found, found.join('\n')).toEqual([]);
  });
});

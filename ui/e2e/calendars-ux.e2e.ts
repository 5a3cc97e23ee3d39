// Issue 16 on the calendar side, in Chromium against the real binary: Add Calendar checks the
// address first, feed errors say why in words, offline is said inline, Build & Host saves and the
// banner says whether the live feed matches, focus after route changes and busy buttons, the
// regex dialog's validation, target and replace-or-append, and the templates' rows.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowser } from './support/browser';
import { DialogScript } from './calendars-support/dialogs';
import { useCalendarSite } from './calendars-support/site';
import { WORK_FEED } from './calendars-support/upstream';

const FEED_ERROR = 'Failed to fetch/parse ICS. Check CORS or URL.';
const URL_PROMPT = 'Subscription URL of the calendar (https:// or webcal://):';

describe('calendar tool: checks, feedback, focus and the regex dialog', () => {
  const b = useBrowser();
  const { url, up } = useCalendarSite({ '/work.ics': { body: WORK_FEED }, '/gone.ics': { status: 404, body: 'no such calendar' } });

  const editorUrl = (id: string, feedUrl: string, name: string) => url(`/calendars/new?${new URLSearchParams({ id, url: feedUrl, name }).toString()}`);
  const field = (page: Page, name: string) => page.locator(`#cal-map-${name}`);
  const stored = (page: Page) =>
    page.evaluate(() => JSON.parse(localStorage.getItem('calendars:v1') ?? '[]') as { id: string; mapping: Record<string, string> }[]);
  const waitCounter = (page: Page, text: string) =>
    page.waitForFunction((t) => document.querySelector('.cal-samples__counter')?.textContent === t, text, { timeout: 10_000 });

  it('asks again with the reason when Add Calendar gets an address that cannot be a feed', async () => {
    const page = b.page;
    const dialogs = new DialogScript(page);
    await page.goto(url('/calendars'));
    dialogs.answer('calendar.example.com/team.ics', false);
    await page.getByRole('button', { name: 'Add Calendar' }).click();
    const seen = await dialogs.waitFor(2);
    expect(seen[0]?.message).toBe(URL_PROMPT);
    expect(seen[1]?.type).toBe('prompt');
    expect(seen[1]?.message).toBe(`The address needs to start with https:// or webcal:// (copy it from your calendar app).\n\n${URL_PROMPT}`);
    expect(seen[1]?.defaultValue).toBe('calendar.example.com/team.ics');
    // Cancelled: the editor never opened.
    expect(page.url()).toBe(url('/calendars'));

    dialogs.answer('ftp://example.com/a.ics', up().url('/work.ics'), 'Work');
    await page.getByRole('button', { name: 'Add Calendar' }).click();
    await page.waitForURL(/\/calendars\/new\?/);
    expect(dialogs.seen[3]?.message.startsWith('Only http, https and webcal addresses can be subscribed to, not ftp:')).toBe(true);
    await waitCounter(page, '1/3');
  });

  it("alerts the spec's text, then the server's reason in words", async () => {
    const page = b.page;
    const dialogs = new DialogScript(page);
    await page.goto(editorUrl('gone', up().url('/gone.ics'), 'Gone'));
    const [alert] = await dialogs.waitFor(1);
    expect(alert?.message.startsWith(`${FEED_ERROR}\n`)).toBe(true);
    expect(alert?.message.slice(FEED_ERROR.length + 1)).toMatch(/^the feed's server answered HTTP 404/);
  });

  it('says inline, without an alert or the list page banner, that the server cannot be reached or the browser is offline', async () => {
    const { page, context } = b;
    const dialogs = new DialogScript(page);
    await page.goto(editorUrl('off', up().url('/work.ics'), 'Off'));
    await waitCounter(page, '1/3');
    await page.route('**/api/feed**', (route) => route.abort('internetdisconnected'));
    await page.getByRole('button', { name: 'Refetch' }).click();
    await page.getByText('This page could not reach the Hearth server, so the feed was not read.', { exact: false }).waitFor();
    await context.setOffline(true);
    await page.getByText('You are offline, so the feed cannot be read, previewed or published.', { exact: false }).waitFor();
    await expect(page.getByText('You are offline. The calendar tool needs the server', { exact: false }).count()).resolves.toBe(0);
    expect(dialogs.seen).toEqual([]);
    await context.setOffline(false);
    await page.unroute('**/api/feed**');
  });

  it('Build & Host saves the mapping it publishes, and the banner says whether the live feed matches the editor', async () => {
    const page = b.page;
    await page.goto(editorUrl('live', up().url('/work.ics'), 'Live'));
    await waitCounter(page, '1/3');
    await field(page, 'SUMMARY').fill('Work: ${SUMMARY}');
    await page.getByRole('button', { name: 'Build & Host' }).click();
    const banner = page.getByRole('region', { name: 'Hosted feed' });
    await banner.getByText('The live feed matches this editor.').waitFor();
    // Saved without pressing Save: the list holds what subscribers get.
    expect((await stored(page)).find((c) => c.id === 'live')?.mapping.SUMMARY).toBe('Work: ${SUMMARY}');
    const hosted = await fetch(url('/cal/live.ics')).then((r) => r.text());
    expect(hosted).toContain('SUMMARY:Work: Team Meeting - Room 101');

    await field(page, 'SUMMARY').fill('Changed: ${SUMMARY}');
    await banner.getByText('You have changes that are not live yet: Build & Host to update.').waitFor();
    await field(page, 'SUMMARY').fill('Work: ${SUMMARY}');
    await banner.getByText('The live feed matches this editor.').waitFor();

    // Reopened from the list, the editor shows the live mapping and says so.
    await page.goto(url('/calendars'));
    await page.getByRole('link', { name: 'Edit Live' }).click();
    await page.waitForURL(/\/calendars\/new\?/);
    await expect(field(page, 'SUMMARY').inputValue()).resolves.toBe('Work: ${SUMMARY}');
    await page.getByText('The live feed matches this editor.').waitFor();
  });

  it('moves focus to the main heading after an in-app route change, keeps it on a busy Build & Host, then gives it to the banner', async () => {
    const page = b.page;
    await page.goto(url('/calendars'));
    // The page itself carries the title (routeParts.ts); Add Calendar comes with the app, and only
    // then is a click on a tool an in-app route change (before it, the link loads a new page).
    await page.getByRole('button', { name: 'Add Calendar' }).waitFor();
    await page.getByRole('navigation', { name: 'Tools' }).getByRole('link', { name: 'Flashcards' }).click();
    await page.waitForFunction(() => document.activeElement?.tagName === 'H1', null, { timeout: 10_000 });
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Your Decks');
    await page.getByRole('navigation', { name: 'Tools' }).getByRole('link', { name: 'Calendars' }).click();
    await page.waitForFunction(() => document.activeElement?.textContent === 'Calendars', null, { timeout: 10_000 });

    // The landing page (outside the router) opening a tool counts too.
    await page.goto(url('/'));
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.getByRole('navigation', { name: 'Tools' }).getByRole('link', { name: 'Calendars' }).click();
    await page.waitForFunction(() => document.activeElement?.textContent === 'Calendars', null, { timeout: 10_000 });

    // A busy Build & Host keeps focus.
    await page.goto(editorUrl('focus', up().url('/work.ics'), 'Focus'));
    await waitCounter(page, '1/3');
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/calendars', async (route) => {
      await held;
      await route.continue();
    });
    await page.getByRole('button', { name: 'Build & Host' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Publishing...' }).waitFor();
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Publishing...');
    release();
    await page.getByRole('region', { name: 'Hosted feed' }).waitFor();
    // Done: the focus goes to what Build & Host made, the banner with the hosted address.
    await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Hosted feed');
    await page.unroute('**/api/calendars');
  });

  it('regex dialog: refuses an invalid pattern, chooses the target, replaces the plain token, keeps a pattern after a stray backdrop tap', async () => {
    const page = b.page;
    await page.goto(editorUrl('regex', up().url('/work.ics'), 'Regex'));
    await waitCounter(page, '1/3');
    await page.getByRole('button', { name: 'Insert SUMMARY', exact: true }).click();
    let dialog = page.getByRole('dialog', { name: 'Regex transform for SUMMARY → insert into DESCRIPTION' });
    await dialog.waitFor();
    const insert = dialog.getByRole('button', { name: 'Insert token' });
    await dialog.getByLabel('Pattern').fill('Room (');
    await dialog.getByText('Fix the pattern to insert the token', { exact: false }).waitFor();
    await expect(insert.isDisabled()).resolves.toBe(true);
    await expect(dialog.getByLabel('Pattern').getAttribute('aria-invalid')).resolves.toBe('true');
    await page.keyboard.press('Enter');
    await expect(dialog.isVisible()).resolves.toBe(true);

    // A tap on the backdrop closes it, but the typed pattern is back on the next opening.
    await dialog.getByLabel('Pattern').fill(' - Room (\\d+)');
    await page.mouse.click(3, 3);
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Insert SUMMARY', exact: true }).click();
    await dialog.waitFor();
    await expect(dialog.getByLabel('Pattern').inputValue()).resolves.toBe(' - Room (\\d+)');

    // Target SUMMARY: replace its ${SUMMARY}, so the title does not show twice.
    await dialog.getByLabel('Insert into').selectOption('SUMMARY');
    dialog = page.getByRole('dialog', { name: 'Regex transform for SUMMARY → insert into SUMMARY' });
    await expect(dialog.getByRole('radio', { name: 'Replace ${SUMMARY} in SUMMARY' }).isChecked()).resolves.toBe(true);
    await dialog.getByLabel('Replacement').fill(' ($1)');
    const insertInto = dialog.getByRole('button', { name: 'Insert token' });
    await expect(insertInto.isEnabled()).resolves.toBe(true);
    await insertInto.click();
    await dialog.waitFor({ state: 'detached' });
    await expect(field(page, 'SUMMARY').inputValue()).resolves.toBe(String.raw`${'$'}{SUMMARY|re:s/ - Room (\\d+)/ ($1)/}`);
    await page.waitForFunction(() => document.querySelector('.cal-preview__value[data-field="SUMMARY"]')?.textContent === 'Team Meeting (101)', null, {
      timeout: 10_000,
    });
  });

  it("gives the Template Mapping fields the spec's rows (DESCRIPTION 6, the others 2) as they open, and grows them from there with their text", async () => {
    const page = b.page;
    await page.goto(editorUrl('rows', up().url('/work.ics'), 'Rows'));
    /** The field's height, and the height the browser gives its rows (a copy without field-sizing or a minimum). */
    const measure = (name: string) =>
      field(page, name).evaluate((area: HTMLTextAreaElement) => {
        const probe = area.cloneNode() as HTMLTextAreaElement;
        probe.removeAttribute('id');
        probe.style.setProperty('field-sizing', 'fixed');
        probe.style.setProperty('min-height', '0');
        area.after(probe);
        const rowsHeight = probe.getBoundingClientRect().height;
        probe.remove();
        return { rows: area.rows, height: area.getBoundingClientRect().height, rowsHeight, line: Number.parseFloat(getComputedStyle(area).lineHeight) };
      });
    const expectSpecRows = async (moment: string) => {
      for (const [name, rows] of Object.entries({ SUMMARY: 2, DESCRIPTION: 6, LOCATION: 2, DTSTART: 2, DTEND: 2 })) {
        const { rows: given, height, rowsHeight } = await measure(name);
        expect(given, name).toBe(rows);
        // One line of text in each: the height of the rows, neither one line nor more.
        expect(height, `${name} ${moment}`).toBeGreaterThanOrEqual(rowsHeight - 0.5);
        expect(height, `${name} ${moment}`).toBeLessThanOrEqual(rowsHeight + 0.5);
      }
    };
    await expectSpecRows('on opening');
    await waitCounter(page, '1/3');
    await expectSpecRows('with the feed read');
    const description = field(page, 'DESCRIPTION');
    const before = await measure('DESCRIPTION');
    await description.click();
    await page.keyboard.press('End');
    await page.keyboard.type('\nwith more lines'.repeat(9));
    await expect(description.inputValue()).resolves.toBe(`\${DESCRIPTION}${'\nwith more lines'.repeat(9)}`);
    const grown = await measure('DESCRIPTION');
    // Ten lines: four more than the six rows.
    expect(grown.height).toBeGreaterThan(before.height + 3.5 * before.line);
    // And back to the six rows, not below, when the lines go.
    await description.fill('${DESCRIPTION}');
    expect((await measure('DESCRIPTION')).height).toBeCloseTo(before.height, 1);
  });

  it('fits a phone: results under each field, no nested sample scroll, readable dates, 44 px touch targets', async () => {
    const phone = await b.browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    try {
      const page = await phone.newPage();
      await page.goto(editorUrl('phone', up().url('/work.ics'), 'Phone'));
      await waitCounter(page, '1/3');
      await page.waitForFunction(() => document.querySelector('.cal-map__result[data-field="SUMMARY"]')?.textContent.includes('Team Meeting'));
      await expect(page.locator('.cal-map__result[data-field="SUMMARY"]').isVisible()).resolves.toBe(true);
      const list = await page
        .locator('.cal-fields')
        .evaluate((el) => ({ overflow: getComputedStyle(el).overflowY, scroll: el.scrollHeight, client: el.clientHeight }));
      expect(list.scroll).toBeLessThanOrEqual(list.client + 1);
      await expect(page.locator('.cal-fields__readable').first().textContent()).resolves.toMatch(/\d{4}, \d{2}:\d{2}/);
      const small = await page.evaluate(() =>
        [...document.querySelectorAll<HTMLElement>('.cal-editor button, .cal-editor a, .cal-token')]
          .filter((el) => el.offsetParent !== null)
          .map((el) => ({ text: el.textContent.trim() || el.getAttribute('aria-label'), h: el.getBoundingClientRect().height }))
          .filter((el) => el.h < 43.5),
      );
      expect(small).toEqual([]);
    } finally {
      await phone.close();
    }
  });
});

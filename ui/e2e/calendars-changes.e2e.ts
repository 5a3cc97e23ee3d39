// Issue 34, item 5, in Chromium against the real binary: hand changes and prefixes. The preview
// shows the event as subscribers get it after "Change this event" (new title, note below the
// description), and says that a new title replaces the feed's prefix, as the dialog says before;
// a prefix typed as the placeholder shows it ("[Lab]") is kept apart from the title; "Hide this
// series" shows only for a series; hiding from the sample and from the dialog land in one list.
// axe on the preview and the dialog with the prefix words, light and dark, phone and desktop.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { axe, describeViolations } from './support/axe';
import { useBrowser } from './support/browser';
import { useCalendarSite } from './calendars-support/site';
import { WORK_FEED } from './calendars-support/upstream';

const ics = (lines: string[]) => `${lines.join('\r\n')}\r\n`;

/** The lab's feed: a single meetup and a weekly series. */
const LAB_FEED = ics([
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Hearth tests//EN',
  'BEGIN:VEVENT',
  'UID:meetup@lab.test',
  'DTSTAMP:20250101T000000Z',
  'DTSTART:20250105T180000Z',
  'DTEND:20250105T200000Z',
  'SUMMARY:Brandenburger Maker-Treffen',
  'DESCRIPTION:Soldering and snacks',
  'END:VEVENT',
  'BEGIN:VEVENT',
  'UID:open@lab.test',
  'DTSTAMP:20250101T000000Z',
  'DTSTART:20250107T170000Z',
  'DTEND:20250107T190000Z',
  'RRULE:FREQ=WEEKLY;COUNT=10',
  'SUMMARY:Open lab',
  'END:VEVENT',
  'END:VCALENDAR',
]);

describe('calendars: hand changes and prefixes', () => {
  const b = useBrowser();
  const { url, up } = useCalendarSite({ '/work.ics': { body: WORK_FEED }, '/lab.ics': { body: LAB_FEED } });
  const waitCounter = (page: Page, text: string) =>
    page.waitForFunction((t) => document.querySelector('.cal-samples__counter')?.textContent === t, text, { timeout: 10_000 });
  const previewValue = (page: Page, field: string) => page.locator(`.cal-preview__value[data-field="${field}"]`);
  const waitPreview = (page: Page, field: string, text: string) =>
    page.waitForFunction(([f, t]) => document.querySelector(`.cal-preview__value[data-field="${f}"]`)?.textContent === t, [field, text] as const, {
      timeout: 10_000,
    });
  const dialog = (page: Page) => page.getByRole('dialog', { name: 'Change this event' });

  /** A new calendar of the lab's feed alone, with the prefix typed as the placeholder shows it. */
  async function openLab(page: Page, id: string) {
    await page.goto(url(`/calendars/new?${new URLSearchParams({ id, url: up().url('/lab.ics'), name: 'Lab' }).toString()}`));
    await waitCounter(page, '1/2');
    // The prefix is in the list of feeds: opened, given to the lab's feed, and the empty row removed.
    await page.getByRole('button', { name: 'Add another feed' }).click();
    await page.getByLabel('Prefix of feed 1').fill('[Lab]');
    await page.getByLabel('Prefix of feed 1').press('Enter');
    await page.getByRole('button', { name: 'Remove feed 2' }).click();
    await waitPreview(page, 'SUMMARY', '[Lab] Brandenburger Maker-Treffen');
  }

  it('keeps a prefix typed without a space apart from the title, in the sample, the preview and the hosted feed', async () => {
    const page = b.page;
    await openLab(page, 'lab-prefix');
    await page.locator('.cal-fields__value', { hasText: '[Lab] Brandenburger Maker-Treffen' }).waitFor();
    await page.getByRole('button', { name: 'Build & Host' }).click();
    await page.getByRole('region', { name: 'Hosted feed' }).waitFor();
    const hosted = await fetch(url('/cal/lab-prefix.ics')).then((r) => r.text());
    expect(hosted).toContain('SUMMARY:[Lab] Brandenburger Maker-Treffen');
    expect(hosted).not.toContain('[Lab]Brandenburger');
  });

  it('previews the event as changed by hand, and says that a new title replaces the prefix', async () => {
    const page = b.page;
    await openLab(page, 'lab-change');
    await page.getByRole('button', { name: 'Change this event' }).click();
    await dialog(page).waitFor();
    // Said before saving: the prefix goes with the old title.
    await dialog(page).getByText('the feed’s prefix “[Lab]” included: type it too to keep it', { exact: false }).waitFor();
    await dialog(page).getByLabel('New title').fill('Maker meetup (moved)');
    await dialog(page).getByLabel('Note', { exact: true }).fill('Now in the basement');
    await dialog(page).getByRole('button', { name: 'Save change' }).click();
    await dialog(page).waitFor({ state: 'detached' });

    await waitPreview(page, 'SUMMARY', 'Maker meetup (moved)');
    await waitPreview(page, 'DESCRIPTION', 'Soldering and snacks\n\nNow in the basement');
    const changed = page.locator('.cal-preview__changed');
    await expect(changed.innerText()).resolves.toBe(
      'With your change by hand: new title “Maker meetup (moved)”, note “Now in the basement”. The new title replaces the whole title, so the feed’s prefix “[Lab]” is not added to it.',
    );

    // What the preview shows is what subscribers get.
    await page.getByRole('button', { name: 'Build & Host' }).click();
    await page.getByRole('region', { name: 'Hosted feed' }).waitFor();
    const hosted = await fetch(url('/cal/lab-change.ics')).then((r) => r.text());
    expect(hosted).toContain(`SUMMARY:${(await previewValue(page, 'SUMMARY').innerText()).trim()}`);
    expect(hosted).toContain('DESCRIPTION:Soldering and snacks\\n\\nNow in the basement');
  });

  it('offers "Hide this series" only for a series, and puts every hide in the one list', async () => {
    const page = b.page;
    await openLab(page, 'lab-hide');
    // The single meetup: no series.
    await expect(page.getByRole('button', { name: 'Hide this series' }).count()).resolves.toBe(0);
    await page.getByRole('button', { name: 'Hide this event' }).click();
    const list = page.getByRole('region', { name: 'Changed by hand' });
    await list.getByText('Brandenburger Maker-Treffen: hidden').waitFor();

    // The weekly series: this occurrence or all of it.
    await page.getByRole('button', { name: 'Next sample' }).click();
    await waitCounter(page, '2/2');
    await expect(page.getByRole('button', { name: 'Hide this event' }).count()).resolves.toBe(0);
    await page.getByRole('button', { name: 'Hide this series' }).click();
    await list.getByText('Open lab: hidden').waitFor();
    await expect(list.locator('.cal-override__text').allInnerTexts()).resolves.toEqual(['[Lab] Brandenburger Maker-Treffen: hidden', '[Lab] Open lab: hidden']);
    // No filter rule was made for either.
    await expect(page.locator('.cal-rule').count()).resolves.toBe(0);
    await page.locator('[data-testid="cal-keeps"]', { hasText: 'keeps 0 of 2 events' }).waitFor();
  });

  it('has no axe violations in the preview and the dialog with the prefix words, light and dark, phone and desktop', async () => {
    const found: string[] = [];
    for (const device of [{ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true }, { viewport: { width: 1280, height: 800 } }]) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const context = await b.browser.newContext({ ...device, colorScheme });
        try {
          const page = await context.newPage();
          const name = `${device.viewport.width}px, ${colorScheme}`;
          await openLab(page, `lab-axe-${device.viewport.width}-${colorScheme}`);
          await page.getByRole('button', { name: 'Change this event' }).click();
          await dialog(page).getByLabel('New title').fill('Maker meetup');
          await page.waitForTimeout(300);
          found.push(...describeViolations(`dialog (${name})`, await axe(page)));
          await dialog(page).getByRole('button', { name: 'Save change' }).click();
          await page.locator('.cal-preview__changed').waitFor();
          await page.waitForTimeout(300);
          found.push(...describeViolations(`preview (${name})`, await axe(page)));
        } finally {
          await context.close();
        }
      }
    }
    expect(found, found.join('\n')).toEqual([]);
  });
});

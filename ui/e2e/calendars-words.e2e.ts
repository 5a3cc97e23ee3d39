// Issue 34, item 9, in Chromium against the real binary: the calendar editor's words. A yearly
// series that never ends is kept whole because it never ends (not "too many occurrences"), and
// the note names the way out, "Days ahead", which then ends it; the Weekdays rule names its days
// in words and chooses none itself; a rule's reason names days in words too. axe on the editor
// with the note and the rule, light and dark, phone and desktop.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { axe, describeViolations } from './support/axe';
import { useBrowser } from './support/browser';
import { useCalendarSite } from './calendars-support/site';

const ics = (lines: string[]) => `${lines.join('\r\n')}\r\n`;

/** A birthday every year from a Saturday, for ever, and a one-off on a Sunday. */
const BIRTHDAYS = ics([
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//Hearth tests//EN',
  'BEGIN:VEVENT',
  'UID:birthday@hearth.test',
  'DTSTAMP:20250101T000000Z',
  'DTSTART;VALUE=DATE:20240106',
  'RRULE:FREQ=YEARLY',
  'SUMMARY:Ada’s birthday',
  'END:VEVENT',
  'BEGIN:VEVENT',
  'UID:party@hearth.test',
  'DTSTAMP:20250101T000000Z',
  'DTSTART:20250105T150000Z',
  'DTEND:20250105T180000Z',
  'SUMMARY:Party',
  'END:VEVENT',
  'END:VCALENDAR',
]);

const ENDLESS =
  'Kept whole in the hosted feed: it repeats without end, so the occurrences your rules drop cannot all be removed. Set “Days ahead” under “Only keep events near today” to end it there.';

describe('calendars: the editor says what it means', () => {
  const b = useBrowser();
  const { url, up } = useCalendarSite({ '/birthdays.ics': { body: BIRTHDAYS } });
  const sampleNote = (page: Page) => page.locator('.cal-samples .cal-decision');
  const waitNote = (page: Page, text: string) =>
    page.waitForFunction((t) => document.querySelector('.cal-samples .cal-decision')?.textContent === t, text, { timeout: 10_000 });

  /** A new calendar of the birthdays with a weekend rule (Saturday and Sunday chosen). */
  async function withWeekendRule(page: Page, id: string) {
    await page.goto(url(`/calendars/new?${new URLSearchParams({ id, url: up().url('/birthdays.ics'), name: 'Birthdays' }).toString()}`));
    await page.locator('.cal-samples__counter', { hasText: '1/2' }).waitFor();
    await page.getByLabel('Kind of rule to add').selectOption('weekdays');
    await page.getByRole('button', { name: 'Add rule' }).click();
    const days = page.getByRole('group', { name: 'Starting on' });
    await expect(days.getByRole('checkbox', { checked: true }).count()).resolves.toBe(0);
    await expect(days.getByRole('checkbox').evaluateAll((boxes) => boxes.map((box) => box.parentElement?.textContent.trim()))).resolves.toEqual([
      'Monday',
      'Tuesday',
      'Wednesday',
      'Thursday',
      'Friday',
      'Saturday',
      'Sunday',
    ]);
    await days.getByLabel('Saturday').check();
    await days.getByLabel('Sunday').check();
  }

  it('keeps an endless yearly series whole because it never ends, names "Days ahead", and Days ahead ends it', async () => {
    const page = b.page;
    await withWeekendRule(page, 'birthdays');
    await waitNote(page, ENDLESS);
    await expect(sampleNote(page).innerText()).resolves.not.toContain('too many');

    // The way out it names: a window's end, and the series' weekend occurrences go one by one.
    await page.getByLabel('Only keep events near today').check();
    await page.getByLabel('Days ahead').fill('3650');
    await page.waitForFunction(
      () => /^Kept in the hosted feed without \d+ occurrences? the filters drop$/.test(document.querySelector('.cal-samples .cal-decision')?.textContent ?? ''),
      null,
      {
        timeout: 10_000,
      },
    );

    // The party on a Sunday: the rule's reason names the days in words.
    await page.getByRole('button', { name: 'Next sample' }).click();
    await waitNote(page, 'Dropped: filter 1 (exclude on Saturday, Sunday)');
  });

  it('has no axe violations with the note and the rule, light and dark, phone and desktop', async () => {
    const found: string[] = [];
    for (const device of [{ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true }, { viewport: { width: 1280, height: 800 } }]) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const context = await b.browser.newContext({ ...device, colorScheme });
        try {
          const page = await context.newPage();
          await withWeekendRule(page, `birthdays-${device.viewport.width}-${colorScheme}`);
          await waitNote(page, ENDLESS);
          await page.waitForTimeout(300);
          found.push(...describeViolations(`editor (${device.viewport.width}px, ${colorScheme})`, await axe(page)));
        } finally {
          await context.close();
        }
      }
    }
    expect(found, found.join('\n')).toEqual([]);
  });
});

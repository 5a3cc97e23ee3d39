// The 'Filters & options' panel in Chromium against the real binary and a loopback upstream: a
// rule changes the live count and the sample's kept/dropped note, the sample browser hides an
// event (a change by hand, listed with the others; a series only where there is one), and Build &
// Host publishes the options so the hosted feed leaves those events out.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowser } from './support/browser';
import { DialogScript } from './calendars-support/dialogs';
import { useCalendarSite } from './calendars-support/site';
import { WORK_FEED } from './calendars-support/upstream';

interface StoredCalendar {
  id: string;
  options?: { filters: unknown[]; timezones?: string };
  hostedUrl?: string;
}

/** A daily event from the Monday of last week, for two weeks: ten weekdays, four weekend days. */
function dailyFeed(): string {
  const day = 86_400_000;
  const today = Math.floor(Date.now() / day) * day;
  // getUTCDay: 0 is Sunday; back to this week's Monday, then a week more.
  const monday = new Date(today - ((new Date(today).getUTCDay() + 6) % 7) * day - 7 * day);
  const date = monday.toISOString().slice(0, 10).replaceAll('-', '');
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Hearth tests//EN', 'BEGIN:VEVENT', 'UID:daily@hearth.test', 'DTSTAMP:20250101T000000Z'];
  lines.push(`DTSTART;VALUE=DATE:${date}`, 'RRULE:FREQ=DAILY;COUNT=14', 'SUMMARY:Daily standup', 'END:VEVENT', 'END:VCALENDAR');
  return `${lines.join('\r\n')}\r\n`;
}

describe('calendars: filters and options', () => {
  const b = useBrowser();
  const { url, up } = useCalendarSite({ '/work.ics': { body: WORK_FEED }, '/daily.ics': { body: dailyFeed() } });

  /** Opens the editor of a new calendar on the work feed and waits for its first sample. */
  async function openEditor(page: Page, id: string) {
    const query = new URLSearchParams({ id, url: up().url('/work.ics'), name: 'Work' });
    await page.goto(url(`/calendars/new?${query.toString()}`));
    await page.getByRole('heading', { name: 'Filters & options' }).waitFor();
    await waitForText(page, '.cal-samples__counter', '1/3');
  }

  const waitForText = (page: Page, selector: string, expected: string) =>
    page.waitForFunction(([s, e]) => document.querySelector(s)?.textContent.includes(e) === true, [selector, expected] as const, {
      timeout: 10_000,
    });
  const keeps = (page: Page, text: string) => waitForText(page, '[data-testid="cal-keeps"]', text);
  const sampleNote = (page: Page) => page.locator('.cal-samples .cal-decision');

  it('an exclude rule changes the count and the sample turns dropped, naming the rule', async () => {
    const page = b.page;
    await openEditor(page, 'e2e-options-rule');
    await keeps(page, 'keeps 3 of 3 events');
    await expect(sampleNote(page).textContent()).resolves.toBe('Kept in the hosted feed');
    await expect(page.locator('.cal-samples .cal-decision').getAttribute('data-kept')).resolves.toBe('true');

    // A property rule: the default kind, on SUMMARY, case-insensitive.
    await page.getByLabel('Kind of rule to add').selectOption('property');
    await page.getByRole('button', { name: 'Add rule' }).click();
    const pattern = page.getByLabel('Pattern (regular expression)');
    await pattern.fill('^team meeting');
    await keeps(page, 'keeps 2 of 3 events');
    await waitForText(page, '.cal-samples .cal-decision', 'Dropped: filter 1 (exclude SUMMARY ~ /^team meeting/i)');
    await expect(page.locator('.cal-samples .cal-decision').getAttribute('data-kept')).resolves.toBe('false');
    // The preview panel says the same.
    await waitForText(page, '.cal-preview .cal-decision', 'Dropped: filter 1');

    // The next sample is kept; the keyboard reaches the rule's controls.
    await page.getByRole('button', { name: 'Next sample' }).click();
    await waitForText(page, '.cal-samples__counter', '2/3');
    await waitForText(page, '.cal-samples .cal-decision', 'Kept in the hosted feed');
    await pattern.focus();
    await page.keyboard.press('Shift+Tab');
    await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('cal-rule-0-field');

    // Switching the rule to "keep only" inverts it.
    await page.getByLabel('Action').selectOption('include');
    await keeps(page, 'keeps 1 of 3 events');

    // Removing the rule brings every event back.
    await page.getByRole('button', { name: 'Remove rule 1' }).click();
    await keeps(page, 'keeps 3 of 3 events');
  });

  it('hides an event from the sample browser as a change by hand, in the one list of hidden events', async () => {
    const page = b.page;
    await openEditor(page, 'e2e-options-hide');
    await keeps(page, 'keeps 3 of 3 events');
    await page.getByRole('button', { name: 'Next sample' }).click();
    await waitForText(page, '.cal-samples__counter', '2/3');
    // A single event: no series to hide.
    await expect(page.getByRole('button', { name: 'Hide this series' }).count()).resolves.toBe(0);
    await page.getByRole('button', { name: 'Hide this event' }).click();
    await keeps(page, 'keeps 2 of 3 events');
    await waitForText(page, '.cal-samples .cal-decision', 'Dropped: hidden by hand');
    // Listed under "Changed by hand" (where the dialog's hiding goes), not as a filter rule.
    await page.getByRole('region', { name: 'Changed by hand' }).getByText('Lunch at the Cafe: hidden').waitFor();
    await expect(page.locator('.cal-rule').count()).resolves.toBe(0);

    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/calendars$/);
    const stored = (await page.evaluate(() => JSON.parse(localStorage.getItem('calendars:v1') ?? '[]') as unknown)) as StoredCalendar[];
    expect(stored.find((c) => c.id === 'e2e-options-hide')?.options).toEqual({
      filters: [],
      timezones: 'repair',
      occurrences: 'each',
      overrides: [{ uid: 'two@hearth.test', hide: true, eventTitle: 'Lunch at the Cafe' }],
    });
  });

  it('publishes the options with Build & Host and the hosted feed applies them', async () => {
    const page = b.page;
    const dialogs = new DialogScript(page);
    await openEditor(page, 'e2e-options-publish');
    await keeps(page, 'keeps 3 of 3 events');
    await page.getByRole('button', { name: 'Hide this event' }).click();
    await keeps(page, 'keeps 2 of 3 events');
    await page.getByLabel('Busy only', { exact: false }).check();
    await page.getByLabel('Only keep events near today').check();
    await page.getByLabel('Days back').fill('');
    await page.getByLabel('Days ahead').fill('');
    // A window open on both sides keeps everything it had.
    await keeps(page, 'keeps 2 of 3 events');

    const published = page.waitForResponse((r) => r.url().endsWith('/api/calendars') && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Build & Host' }).click();
    const response = await published;
    expect(response.status()).toBe(201);
    expect(JSON.parse(response.request().postData() ?? '{}')).toMatchObject({
      id: 'e2e-options-publish',
      overrides: [{ uid: 'one@hearth.test', hide: true }],
      timezones: 'repair',
      privacy: 'busy',
      window: {},
    });
    await page.getByRole('region', { name: 'Hosted feed' }).waitFor();
    const hosted = await (await fetch(url('/cal/e2e-options-publish.ics'))).text();
    expect(hosted).not.toContain('UID:one@hearth.test');
    expect(hosted).toContain('UID:two@hearth.test');
    expect(hosted).toContain('SUMMARY:Busy');
    expect(hosted).not.toContain('Cafe');
    expect(dialogs.seen.filter((d) => d.type === 'alert')).toEqual([]);
  });

  it('refuses a number that is not whole or in range beside its box, and keeps the last good one', async () => {
    const page = b.page;
    await openEditor(page, 'e2e-options-numbers');
    await page.getByLabel('One alarm before each event').check();
    const minutes = page.getByLabel('Minutes before');
    await expect(minutes.inputValue()).resolves.toBe('15');
    for (const bad of ['', '-5', '2.5', '40321']) {
      await minutes.fill(bad);
      await page.getByText('whole minutes from 0 to 40320').waitFor();
      await expect(minutes.getAttribute('aria-invalid')).resolves.toBe('true');
      await expect(minutes.getAttribute('aria-describedby')).resolves.toBe('cal-alarms-minutes-error');
    }
    await minutes.fill('30');
    await expect(minutes.getAttribute('aria-invalid')).resolves.toBeNull();
    await expect(page.getByText('whole minutes from 0 to 40320').count()).resolves.toBe(0);
    await minutes.fill('-1');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/calendars$/);
    const stored = (await page.evaluate(() => JSON.parse(localStorage.getItem('calendars:v1') ?? '[]') as unknown)) as {
      id: string;
      options?: { alarms?: unknown };
    }[];
    expect(stored.find((c) => c.id === 'e2e-options-numbers')?.options?.alarms).toEqual({ addMinutesBefore: 30 });
  });

  it('judges each occurrence of a new calendar: a weekend rule removes four days and the count says so', async () => {
    const page = b.page;
    const query = new URLSearchParams({ id: 'e2e-options-each', url: up().url('/daily.ics'), name: 'Daily' });
    await page.goto(url(`/calendars/new?${query.toString()}`));
    await page.getByRole('heading', { name: 'Filters & options' }).waitFor();
    const each = page.getByLabel('Judge each occurrence of a repeating event');
    await expect(each.isChecked()).resolves.toBe(true);
    await keeps(page, 'keeps 1 of 1 event');
    await waitForText(page, '[data-testid="cal-occurrences"]', '14 occurrences from');

    // A new weekdays rule drops nothing until its days are chosen, named in words, not codes.
    await page.getByLabel('Kind of rule to add').selectOption('weekdays');
    await page.getByRole('button', { name: 'Add rule' }).click();
    const days = page.getByRole('group', { name: 'Starting on' });
    await expect(days.getByRole('checkbox').evaluateAll((boxes) => boxes.map((b) => (b as HTMLInputElement).checked))).resolves.toEqual(
      Array<boolean>(7).fill(false),
    );
    await expect(days.innerText()).resolves.not.toMatch(/\b(MO|TU|WE|TH|FR|SA|SU)\b/);
    await page.getByText('choose at least one weekday').waitFor();
    // Saturdays and Sundays: of each one, not of the series.
    await days.getByLabel('Saturday').check();
    await days.getByLabel('Sunday').check();
    await waitForText(page, '[data-testid="cal-occurrences"]', '10 occurrences from');
    await keeps(page, 'keeps 1 of 1 event');
    await waitForText(page, '.cal-samples .cal-decision', 'Kept in the hosted feed without 4 occurrences the filters drop');

    // Judged by its first occurrence (a Monday), the series stays whole again.
    await each.uncheck();
    await waitForText(page, '[data-testid="cal-occurrences"]', '14 occurrences from');
    await waitForText(page, '.cal-samples .cal-decision', 'Kept in the hosted feed');
    await each.check();
    await waitForText(page, '[data-testid="cal-occurrences"]', '10 occurrences from');

    // Saved with the calendar.
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/calendars$/);
    const stored = (await page.evaluate(() => JSON.parse(localStorage.getItem('calendars:v1') ?? '[]') as unknown)) as {
      id: string;
      options?: { occurrences?: string };
    }[];
    expect(stored.find((c) => c.id === 'e2e-options-each')?.options?.occurrences).toBe('each');
  });

  it('fits a phone screen without sideways scrolling', async () => {
    const page = b.page;
    await page.setViewportSize({ width: 360, height: 740 });
    await openEditor(page, 'e2e-options-phone');
    await page.getByRole('button', { name: 'Add rule' }).click();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });
});

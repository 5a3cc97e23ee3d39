// Events changed by hand and past events that stay, in Chromium against the real binary and a
// loopback upstream: "Change this event" gives a sample a new title and a shift, the "Changed by
// hand" list says so and undoes it; an occurrence of a series is hidden; "Keep past events" is
// turned on; Build & Host publishes it all and the hosted feed has the new title; an override
// whose event leaves the feed is marked, not dropped; axe on the editor with the list and on the
// dialog, light and dark, on a phone and a desktop.
import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { axe, describeViolations } from './support/axe';
import { useBrowser } from './support/browser';
import { DialogScript } from './calendars-support/dialogs';
import { useCalendarSite } from './calendars-support/site';

const ics = (lines: string[]) => `${lines.join('\r\n')}\r\n`;

const TEAM_MEETING = [
  'BEGIN:VEVENT',
  'UID:team@hearth.test',
  'DTSTAMP:20250101T000000Z',
  'DTSTART:20250102T100000Z',
  'DTEND:20250102T110000Z',
  'SUMMARY:Team meeting',
  'END:VEVENT',
];

/** A single event, a weekly series and one of its occurrences moved (listed on its own). */
function feed(withTeamMeeting = true): string {
  return ics([
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Hearth tests//EN',
    ...(withTeamMeeting ? TEAM_MEETING : []),
    'BEGIN:VEVENT',
    'UID:standup@hearth.test',
    'DTSTAMP:20250101T000000Z',
    'DTSTART:20250106T090000Z',
    'DTEND:20250106T091500Z',
    'RRULE:FREQ=WEEKLY;COUNT=4',
    'SUMMARY:Standup',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'UID:standup@hearth.test',
    'DTSTAMP:20250101T000000Z',
    'RECURRENCE-ID:20250113T090000Z',
    'DTSTART:20250113T100000Z',
    'DTEND:20250113T101500Z',
    'SUMMARY:Standup (moved)',
    'END:VEVENT',
    'END:VCALENDAR',
  ]);
}

const RETITLED = 'Team meeting: new title “Budget meeting”, 30 minutes later';

interface StoredCalendar {
  id: string;
  options?: { overrides?: unknown[]; history?: unknown };
}

describe('calendars: events changed by hand and past events that stay', () => {
  const b = useBrowser();
  const { url, up } = useCalendarSite({ '/team.ics': { body: feed() }, '/leaving.ics': { body: feed() } });

  const waitForText = (page: Page, selector: string, expected: string, timeout = 10_000) =>
    page.waitForFunction(([s, e]) => document.querySelector(s)?.textContent.includes(e) === true, [selector, expected] as const, { timeout });
  const keeps = (page: Page, text: string) => waitForText(page, '[data-testid="cal-keeps"]', text);
  const editorPath = (id: string, path: string) => `/calendars/new?${new URLSearchParams({ id, url: up().url(path), name: 'Team' }).toString()}`;

  /** Opens the editor of a new calendar on `path` and waits for its first sample and count. */
  async function openEditor(page: Page, id: string, path = '/team.ics') {
    await page.goto(url(editorPath(id, path)));
    await page.getByRole('heading', { name: 'Changed by hand' }).waitFor();
    await waitForText(page, '.cal-samples__counter', '1/3');
    await keeps(page, 'keeps 3 of 3 events');
  }

  async function nextSample(page: Page, counter: string) {
    await page.getByRole('button', { name: 'Next sample' }).click();
    await waitForText(page, '.cal-samples__counter', counter);
  }

  const list = (page: Page) => page.getByRole('region', { name: 'Changed by hand' });
  const rows = (page: Page) => list(page).locator('.cal-override__text').allTextContents();
  const dialog = (page: Page) => page.getByRole('dialog', { name: 'Change this event' });
  const focusedIs = (page: Page, selector: string) => page.locator(selector).evaluate((element) => element === document.activeElement);

  /** The sample's title and a 30-minute shift, through the dialog. */
  async function retitle(page: Page) {
    await page.getByRole('button', { name: 'Change this event' }).click();
    await dialog(page).waitFor();
    await dialog(page).getByLabel('New title').fill('Budget meeting');
    await dialog(page).getByLabel('Move it by').fill('30');
    await dialog(page).getByLabel('Unit').selectOption('minutes');
    await dialog(page).getByLabel('Earlier or later').selectOption('later');
    await dialog(page).getByRole('button', { name: 'Save change' }).click();
    await dialog(page).waitFor({ state: 'detached' });
  }

  it('changes a title from the sample, lists it in words, and undoes it', async () => {
    const page = b.page;
    await openEditor(page, 'e2e-overrides-undo');
    await expect(list(page).getByText('No event changed by hand.', { exact: false }).count()).resolves.toBe(1);

    // The dialog takes focus (the title box) and gives it back; Escape closes it without a change.
    await page.getByRole('button', { name: 'Change this event' }).click();
    await dialog(page).waitFor();
    await expect(
      dialog(page)
        .getByLabel('New title')
        .evaluate((element) => element === document.activeElement),
    ).resolves.toBe(true);
    await dialog(page).getByLabel('New title').fill('Not this');
    await page.keyboard.press('Escape');
    await dialog(page).waitFor({ state: 'detached' });
    await expect(page.getByRole('button', { name: 'Change this event' }).evaluate((element) => element === document.activeElement)).resolves.toBe(true);
    await expect(rows(page)).resolves.toEqual([]);

    // Saving with nothing to change says why and keeps the dialog open.
    await page.getByRole('button', { name: 'Change this event' }).click();
    await dialog(page).waitFor();
    await dialog(page).getByRole('button', { name: 'Save change' }).click();
    await page.getByRole('alert').filter({ hasText: 'Nothing would change' }).waitFor();
    await dialog(page).getByRole('button', { name: 'Cancel' }).click();
    await dialog(page).waitFor({ state: 'detached' });

    const previewed = page.waitForRequest((r) => r.url().endsWith('/api/preview') && (r.postData() ?? '').includes('Budget meeting'));
    await retitle(page);
    const sent = JSON.parse((await previewed).postData() ?? '{}') as { config: { overrides?: unknown } };
    expect(sent.config.overrides).toEqual([{ uid: 'team@hearth.test', summary: 'Budget meeting', shiftMinutes: 30 }]);
    await expect(rows(page)).resolves.toEqual([RETITLED]);
    await waitForText(page, '.cal-samples__changed', 'Changed by hand: new title “Budget meeting”, 30 minutes later');
    // A change is not a drop: the count stays.
    await keeps(page, 'keeps 3 of 3 events');

    // Opening it again shows the change as it is; saving replaces it (one row for the event).
    await page.getByRole('button', { name: 'Change this event' }).click();
    await dialog(page).waitFor();
    await expect(dialog(page).getByLabel('New title').inputValue()).resolves.toBe('Budget meeting');
    await expect(dialog(page).getByLabel('Move it by').inputValue()).resolves.toBe('30');
    await page.getByText('saving replaces it', { exact: false }).waitFor();
    await dialog(page).getByLabel('Note', { exact: true }).fill('Bring the numbers');
    await dialog(page).getByRole('button', { name: 'Save change' }).click();
    await dialog(page).waitFor({ state: 'detached' });
    await expect(rows(page)).resolves.toEqual([`${RETITLED}, note “Bring the numbers”`]);

    // Undo, by keyboard: the row goes, focus stays in the list (its heading, the list being empty), and the undo is said.
    await list(page)
      .getByRole('button', { name: `Undo: ${RETITLED}, note “Bring the numbers”` })
      .focus();
    await page.keyboard.press('Enter');
    await list(page).getByText('No event changed by hand.', { exact: false }).waitFor();
    await expect(focusedIs(page, '#cal-overrides-title')).resolves.toBe(true);
    await expect(list(page).getByRole('status').textContent()).resolves.toBe(`Undone: ${RETITLED}, note “Bring the numbers”`);
    await expect(page.locator('.cal-samples__changed').count()).resolves.toBe(0);
  });

  it('hides an occurrence, keeps past events, publishes, and the hosted feed has the changed title', async () => {
    const page = b.page;
    const dialogs = new DialogScript(page);
    await openEditor(page, 'e2e-overrides-publish');
    await retitle(page);

    // The moved occurrence of the series: hidden alone.
    await nextSample(page, '2/3');
    await nextSample(page, '3/3');
    await page.getByRole('button', { name: 'Change this event' }).click();
    await dialog(page).waitFor();
    await expect(dialog(page).getByLabel('Change this occurrence').isChecked()).resolves.toBe(true);
    await dialog(page).getByLabel('Hide this occurrence', { exact: false }).check();
    // The change fields wait, disabled, while hiding is chosen.
    await expect(dialog(page).getByLabel('New title').isDisabled()).resolves.toBe(true);
    await dialog(page).getByRole('button', { name: 'Save change' }).click();
    await dialog(page).waitFor({ state: 'detached' });
    await keeps(page, 'keeps 2 of 3 events');
    await waitForText(page, '.cal-samples .cal-decision', 'Dropped: hidden by hand');
    await expect(rows(page)).resolves.toEqual([RETITLED, 'Standup (moved) on Mon 13 Jan 2025, 09:00 UTC: this occurrence hidden']);

    // Keep past events: off until turned on, then 30 days and what it means.
    const keep = page.getByLabel('Keep past events');
    await expect(keep.isChecked()).resolves.toBe(false);
    await keep.check();
    await expect(page.getByLabel('Days to keep').inputValue()).resolves.toBe('30');
    await page
      .getByText('Events your calendar’s source stops publishing after they ended stay in the published calendar for this many days.', { exact: true })
      .waitFor();
    // A number out of range is refused beside its box, and the last good one stays.
    await page.getByLabel('Days to keep').fill('400');
    await page.getByText('whole days from 1 to 366').waitFor();
    await page.getByLabel('Days to keep').fill('30');

    const published = page.waitForResponse((r) => r.url().endsWith('/api/calendars') && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Build & Host' }).click();
    const response = await published;
    expect(response.status()).toBe(201);
    expect(JSON.parse(response.request().postData() ?? '{}')).toMatchObject({
      id: 'e2e-overrides-publish',
      overrides: [
        { uid: 'team@hearth.test', summary: 'Budget meeting', shiftMinutes: 30 },
        { uid: 'standup@hearth.test', recurrenceId: '20250113T090000Z', hide: true },
      ],
      history: { keepDays: 30 },
    });
    // The titles this browser keeps for the list are never sent.
    expect(response.request().postData()).not.toContain('eventTitle');
    await page.getByRole('region', { name: 'Hosted feed' }).waitFor();

    const hosted = await (await fetch(url('/cal/e2e-overrides-publish.ics'))).text();
    expect(hosted).toContain('SUMMARY:Budget meeting\r\n');
    expect(hosted).not.toContain('SUMMARY:Team meeting\r\n');
    expect(hosted).toContain('DTSTART:20250102T103000Z\r\n');
    expect(hosted).toContain('DTEND:20250102T113000Z\r\n');
    expect(hosted).not.toContain('Standup (moved)');
    expect(hosted).toContain('EXDATE');
    expect(dialogs.seen.filter((d) => d.type === 'alert')).toEqual([]);

    // Saved with the calendar, titles and all.
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/calendars$/);
    const stored = (await page.evaluate(() => JSON.parse(localStorage.getItem('calendars:v1') ?? '[]') as unknown)) as StoredCalendar[];
    const options = stored.find((c) => c.id === 'e2e-overrides-publish')?.options;
    expect(options?.history).toEqual({ keepDays: 30 });
    expect(options?.overrides).toEqual([
      { uid: 'team@hearth.test', summary: 'Budget meeting', shiftMinutes: 30, eventTitle: 'Team meeting' },
      { uid: 'standup@hearth.test', recurrenceId: '20250113T090000Z', hide: true, eventTitle: 'Standup (moved)' },
    ]);
  });

  it('marks a change whose event left the feed, and keeps it', async () => {
    const page = b.page;
    await openEditor(page, 'e2e-overrides-gone', '/leaving.ics');
    await retitle(page);
    await expect(rows(page)).resolves.toEqual([RETITLED]);
    await expect(list(page).locator('.cal-override').getAttribute('data-gone')).resolves.toBe('false');

    // Upstream drops the event. Refetch takes the server's copy when it is under 5 s old, so it is
    // pressed again until the server has read the feed anew.
    up().set('/leaving.ics', { body: feed(false) });
    const deadline = Date.now() + 20_000;
    for (;;) {
      await page.getByRole('button', { name: 'Refetch' }).click();
      const read = await waitForText(page, '.cal-samples__counter', '1/2', 2_000).then(
        () => true,
        () => false,
      );
      if (read) break;
      if (Date.now() > deadline) throw new Error('the editor never showed the feed without the event');
    }
    await page.locator('.cal-override[data-gone="true"]').waitFor({ timeout: 10_000 });
    await expect(list(page).locator('.cal-override__state').textContent()).resolves.toBe('Not in the feed any more');
    await expect(rows(page)).resolves.toEqual([RETITLED]);
    await keeps(page, 'keeps 2 of 2 events');
  });

  it('fits a phone with the dialog open and the list shown, without sideways scrolling', async () => {
    const page = b.page;
    await page.setViewportSize({ width: 360, height: 740 });
    await openEditor(page, 'e2e-overrides-phone');
    await retitle(page);
    await page.getByRole('button', { name: 'Change this event' }).click();
    await dialog(page).waitFor();
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    await expect(overflow()).resolves.toBeLessThanOrEqual(0);
    const box = await dialog(page).boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= 360).toBe(true);
    await page.keyboard.press('Escape');
    await dialog(page).waitFor({ state: 'detached' });
    await expect(overflow()).resolves.toBeLessThanOrEqual(0);
  });

  describe('axe', () => {
    const DEVICES = [
      { name: 'phone', options: { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true } },
      { name: 'desktop', options: { viewport: { width: 1280, height: 800 } } },
    ] as const;
    const SCHEMES = ['light', 'dark'] as const;

    /** A saved calendar with a change, a hidden occurrence, one whose event is gone, and history on. */
    const seeded = (feedUrl: string) => ({
      id: 'e2e-overrides-axe',
      name: 'Team',
      url: feedUrl,
      mapping: { SUMMARY: '${SUMMARY}', DESCRIPTION: '${DESCRIPTION}', LOCATION: '${LOCATION}', DTSTART: '${DTSTART}', DTEND: '${DTEND}' },
      lastBuiltAt: '',
      options: {
        filters: [],
        timezones: 'repair',
        history: { keepDays: 30 },
        overrides: [
          { uid: 'team@hearth.test', summary: 'Budget meeting', shiftMinutes: 30, eventTitle: 'Team meeting' },
          { uid: 'standup@hearth.test', recurrenceId: '20250113T090000Z', hide: true, eventTitle: 'Standup (moved)' },
          { uid: 'gone@hearth.test', note: 'Room 2 this week', eventTitle: 'Planning' },
        ],
      },
    });

    for (const device of DEVICES) {
      for (const scheme of SCHEMES) {
        it(`finds no violations in the list and the dialog on ${device.name}, ${scheme}`, async () => {
          const context: BrowserContext = await b.browser.newContext({ ...device.options, colorScheme: scheme });
          const found: string[] = [];
          try {
            await context.addInitScript(
              (calendar: unknown) => {
                if (sessionStorage.getItem('seeded')) return;
                sessionStorage.setItem('seeded', '1');
                localStorage.setItem('calendars:v1', JSON.stringify([calendar]));
              },
              seeded(up().url('/team.ics')),
            );
            const page = await context.newPage();
            await page.goto(url(editorPath('e2e-overrides-axe', '/team.ics')));
            await waitForText(page, '.cal-samples__counter', '1/3');
            await page.locator('.cal-override[data-gone="true"]').waitFor({ timeout: 15_000 });
            await page.getByLabel('Days to keep').waitFor();
            await page.waitForTimeout(300); // lets transitions settle before judging colours
            found.push(...describeViolations('editor with the list', await axe(page)));

            await page.getByRole('button', { name: 'Change this event' }).click();
            await dialog(page).waitFor();
            await dialog(page).getByLabel('New title').fill('x'.repeat(501));
            await dialog(page).getByLabel('Move it by').fill('-5');
            await page.waitForTimeout(300);
            found.push(...describeViolations('change dialog (refusing)', await axe(page)));
            await page.keyboard.press('Escape');
          } finally {
            await context.close();
          }
          expect(found, found.join('\n')).toEqual([]);
        });
      }
    }
  });
});

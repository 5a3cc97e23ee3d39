// Issue 34, item 2, in Chromium against the real binary: the calendar editor never loses work.
// Every kind of edit (undoing a hand change, a new feed with a prefix, a filter, a template) is
// marked unsaved, kept as a draft when the visitor leaves by "All calendars" or reloads, listed,
// restored with a notice until discarded or saved; a calendar never saved is listed as such; and
// leaving asks only when this browser cannot keep the draft. axe on those states, light and dark,
// phone and desktop.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { axe, describeViolations } from './support/axe';
import { useBrowser } from './support/browser';
import { DialogScript } from './calendars-support/dialogs';
import { useCalendarSite } from './calendars-support/site';
import { WORK_FEED } from './calendars-support/upstream';

interface Stored {
  id: string;
  name: string;
  url: string;
  mapping: Record<string, string>;
  sources?: { url: string; prefix?: string }[];
  options?: { filters?: unknown[]; overrides?: unknown[] };
  hostedUrl?: string;
}

const DEFAULT_MAPPING = { SUMMARY: '${SUMMARY}', DESCRIPTION: '${DESCRIPTION}', LOCATION: '${LOCATION}', DTSTART: '${DTSTART}', DTEND: '${DTEND}' };
const HAND_CHANGE = { uid: 'one@hearth.test', summary: 'Renamed by hand', eventTitle: 'Team Meeting - Room 101' };
const leaveDialog = (page: Page) => page.getByRole('dialog', { name: 'Leave with unsaved changes?' });
const marker = (page: Page, text: string) => page.locator('.unsaved-marker', { hasText: text });
const field = (page: Page, name: string) => page.locator(`#cal-map-${name}`);
const stored = (page: Page) => page.evaluate(() => JSON.parse(localStorage.getItem('calendars:v1') ?? '[]') as Stored[]);
const draft = (page: Page, id: string) => page.evaluate((key) => JSON.parse(localStorage.getItem(key) ?? 'null') as Stored | null, `calendar:draft:${id}`);
const waitCounter = (page: Page, text: string) =>
  page.waitForFunction((t) => document.querySelector('.cal-samples__counter')?.textContent === t, text, { timeout: 10_000 });

/** Until the next page load, every draft write fails as with a full quota; other writes go on. */
const failDraftWrites = (page: Page) =>
  page.evaluate(() => {
    const setItem: (this: Storage, key: string, value: string) => void = Reflect.get(Storage.prototype, 'setItem');
    Storage.prototype.setItem = function (this: Storage, key: string, value: string) {
      if (key.startsWith('calendar:draft:')) throw new DOMException('full', 'QuotaExceededError');
      setItem.call(this, key, value);
    };
  });

describe('calendar editor: nothing lost', () => {
  const b = useBrowser();
  const { url, up } = useCalendarSite({ '/work.ics': { body: WORK_FEED }, '/lab.ics': { body: WORK_FEED.replaceAll('@hearth.test', '@lab.test') } });
  const editorUrl = (id: string, name: string, path = '/work.ics') =>
    url(`/calendars/new?${new URLSearchParams({ id, url: up().url(path), name }).toString()}`);

  /** A saved calendar "Kept" with one event changed by hand. */
  async function seedKept(page: Page) {
    await page.goto(url('/calendars'));
    const kept: Stored = { id: 'kept', name: 'Kept', url: up().url('/work.ics'), mapping: DEFAULT_MAPPING, options: { filters: [], overrides: [HAND_CHANGE] } };
    await page.evaluate((calendars) => localStorage.setItem('calendars:v1', JSON.stringify(calendars)), [kept]);
    await page.reload();
  }

  it('marks every kind of edit unsaved, keeps it through leaving and reloading without a question, and restores it until discarded', async () => {
    const page = b.page;
    const dialogs = new DialogScript(page);
    await seedKept(page);
    await page.getByRole('link', { name: 'Edit Kept' }).click();
    await waitCounter(page, '1/3');
    await expect(marker(page, 'Unsaved changes').count()).resolves.toBe(0);

    // Undo of the hand change, a new feed with a prefix, a filter and a template.
    await page
      .getByRole('region', { name: 'Changed by hand' })
      .getByRole('button', { name: /^Undo: / })
      .click();
    await marker(page, 'Unsaved changes').waitFor();
    await page.getByRole('button', { name: 'Add another feed' }).click();
    await page.getByLabel('Address of feed 2').fill(up().url('/lab.ics'));
    await page.getByLabel('Prefix of feed 2').fill('[Lab] ');
    await page.getByLabel('Prefix of feed 2').press('Enter');
    await page.getByLabel('Kind of rule to add').selectOption('allDay');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await field(page, 'SUMMARY').fill('Work: ${SUMMARY}');
    await page.waitForFunction(() => localStorage.getItem('calendar:draft:kept')?.includes('Work: ${SUMMARY}') === true, null, { timeout: 5_000 });

    // Leaving asks nothing (the draft keeps it all); the list says the calendar has unsaved changes.
    await page.getByRole('link', { name: 'All calendars' }).click();
    await page.waitForURL(url('/calendars'));
    await expect(leaveDialog(page).count()).resolves.toBe(0);
    const item = page.getByRole('listitem').filter({ hasText: 'Kept' });
    await item.locator('.unsaved-marker', { hasText: 'Unsaved changes' }).waitFor();
    // The saved calendar is as it was.
    expect((await stored(page))[0]).toMatchObject({ mapping: DEFAULT_MAPPING, options: { overrides: [HAND_CHANGE] } });
    expect((await stored(page))[0]?.sources).toBeUndefined();

    // Back in the editor, and after a reload: every edit is there, and the screen says so.
    for (const reopen of [() => item.getByRole('link', { name: 'Edit Kept' }).click(), () => page.reload()]) {
      await reopen();
      await page.getByText(/^Restored your unsaved changes from /).waitFor();
      await marker(page, 'Unsaved changes').waitFor();
      await expect(field(page, 'SUMMARY').inputValue()).resolves.toBe('Work: ${SUMMARY}');
      await expect(page.getByLabel('Address of feed 2').inputValue()).resolves.toBe(up().url('/lab.ics'));
      await expect(page.getByLabel('Prefix of feed 2').inputValue()).resolves.toBe('[Lab] ');
      await expect(page.getByLabel('Kind of rule to add').count()).resolves.toBe(1);
      await expect(page.locator('.cal-rule').count()).resolves.toBe(1);
      await page.getByText('No event changed by hand.', { exact: false }).waitFor();
    }
    expect(dialogs.seen).toEqual([]);

    // Discard: the saved calendar again, nothing unsaved, no draft.
    await page.getByRole('button', { name: 'Discard changes' }).click();
    await expect(field(page, 'SUMMARY').inputValue()).resolves.toBe('${SUMMARY}');
    await page
      .getByRole('region', { name: 'Changed by hand' })
      .getByRole('button', { name: /^Undo: / })
      .waitFor();
    await expect(page.getByLabel('Address of feed 2').count()).resolves.toBe(0);
    await expect(marker(page, 'Unsaved changes').count()).resolves.toBe(0);
    await expect(draft(page, 'kept')).resolves.toBeNull();

    // A new hand change, then Save: the list holds it and nothing is unsaved.
    await page.getByRole('button', { name: 'Next sample' }).click();
    await waitCounter(page, '2/3');
    await page.getByRole('button', { name: 'Change this event' }).click();
    const change = page.getByRole('dialog', { name: 'Change this event' });
    await change.getByLabel('New title').fill('Long lunch');
    await change.getByRole('button', { name: 'Save change' }).click();
    await change.waitFor({ state: 'detached' });
    await marker(page, 'Unsaved changes').waitFor();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(url('/calendars'));
    expect((await stored(page))[0]?.options?.overrides).toEqual([HAND_CHANGE, expect.objectContaining({ uid: 'two@hearth.test', summary: 'Long lunch' })]);
    await expect(page.locator('.unsaved-marker').count()).resolves.toBe(0);
    await expect(draft(page, 'kept')).resolves.toBeNull();
  });

  it('lists a calendar never saved, and Build & Host or Delete settle it', async () => {
    const page = b.page;
    await page.goto(editorUrl('fresh', 'Fresh'));
    await waitCounter(page, '1/3');
    await marker(page, 'Not saved yet').waitFor();
    await page.getByRole('link', { name: 'All calendars' }).click();
    await page.waitForURL(url('/calendars'));
    const fresh = page.getByRole('listitem').filter({ hasText: 'Fresh' });
    await fresh.locator('.unsaved-marker', { hasText: 'Not saved yet' }).waitFor();
    await expect(page.getByText('No calendars saved yet.').count()).resolves.toBe(0);

    // Opened again from the list, Build & Host saves it: nothing unsaved is left.
    await fresh.getByRole('link', { name: 'Edit Fresh' }).click();
    await waitCounter(page, '1/3');
    await page.getByRole('button', { name: 'Build & Host' }).click();
    await page.getByRole('region', { name: 'Hosted feed' }).waitFor();
    await expect(marker(page, 'Not saved yet').count()).resolves.toBe(0);
    await expect(page.locator('.unsaved-marker').count()).resolves.toBe(0);
    await expect(draft(page, 'fresh')).resolves.toBeNull();
    await page.getByRole('link', { name: 'All calendars' }).click();
    await page.getByRole('link', { name: 'Edit Fresh' }).waitFor();
    await expect(page.locator('.unsaved-marker').count()).resolves.toBe(0);

    // Another one left unsaved, then deleted from the list: gone with its draft.
    await page.goto(editorUrl('passing', 'Passing'));
    await waitCounter(page, '1/3');
    await page.getByRole('link', { name: 'All calendars' }).click();
    const dialogs = new DialogScript(page).answer(true);
    await page.getByRole('button', { name: 'Delete Passing' }).click();
    await dialogs.waitFor(1);
    expect(dialogs.seen[0]?.message).toBe('Delete this calendar?');
    await page.getByRole('button', { name: 'Delete Passing' }).waitFor({ state: 'detached' });
    await expect(draft(page, 'passing')).resolves.toBeNull();
    expect((await stored(page)).map((c) => c.id)).toEqual(['fresh']);
  });

  it('asks before leaving only when this browser cannot keep the draft: keep editing, save and leave, or leave', async () => {
    const page = b.page;
    await seedKept(page);
    await page.getByRole('link', { name: 'Edit Kept' }).click();
    await waitCounter(page, '1/3');
    await failDraftWrites(page);
    await field(page, 'SUMMARY').fill('First: ${SUMMARY}');
    await page.getByText('This browser could not keep your unsaved changes as a draft', { exact: false }).waitFor();

    await page.getByRole('link', { name: 'All calendars' }).click();
    await leaveDialog(page).waitFor();
    await expect(
      leaveDialog(page)
        .getByRole('button', { name: 'Keep editing' })
        .evaluate((el) => el === document.activeElement),
    ).resolves.toBe(true);
    await leaveDialog(page).getByRole('button', { name: 'Keep editing' }).click();
    await leaveDialog(page).waitFor({ state: 'detached' });
    await expect(field(page, 'SUMMARY').inputValue()).resolves.toBe('First: ${SUMMARY}');

    await page.getByRole('link', { name: 'All calendars' }).click();
    await leaveDialog(page).getByRole('button', { name: 'Save and leave' }).click();
    await page.waitForURL(url('/calendars'));
    expect((await stored(page))[0]?.mapping.SUMMARY).toBe('First: ${SUMMARY}');

    await page.getByRole('link', { name: 'Edit Kept' }).click();
    await waitCounter(page, '1/3');
    await field(page, 'SUMMARY').fill('Second: ${SUMMARY}');
    await page.getByRole('link', { name: 'All calendars' }).click();
    await leaveDialog(page).getByRole('button', { name: 'Leave', exact: true }).click();
    await page.waitForURL(url('/calendars'));
    expect((await stored(page))[0]?.mapping.SUMMARY).toBe('First: ${SUMMARY}');
    await expect(page.locator('.unsaved-marker').count()).resolves.toBe(0);
  });

  it('has no axe violations with work unsaved, restored, listed and asked about, light and dark, phone and desktop', async () => {
    const found: string[] = [];
    for (const device of [{ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true }, { viewport: { width: 1280, height: 800 } }]) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const context = await b.browser.newContext({ ...device, colorScheme });
        try {
          const page = await context.newPage();
          const check = async (name: string) => {
            await page.waitForTimeout(300);
            found.push(...describeViolations(`${name} (${device.viewport.width}px, ${colorScheme})`, await axe(page)));
          };
          await seedKept(page);
          await page.getByRole('link', { name: 'Edit Kept' }).click();
          await waitCounter(page, '1/3');
          await field(page, 'SUMMARY').fill('Work: ${SUMMARY}');
          await marker(page, 'Unsaved changes').waitFor();
          await page.waitForFunction(() => localStorage.getItem('calendar:draft:kept') !== null);
          await page.reload();
          await page.getByText(/^Restored your unsaved changes from /).waitFor();
          await waitCounter(page, '1/3');
          await check('editor with a restored draft');
          await page.getByRole('link', { name: 'All calendars' }).click();
          await page.locator('.unsaved-marker').waitFor();
          await check('list with unsaved changes');
          await page.getByRole('link', { name: 'Edit Kept' }).click();
          await waitCounter(page, '1/3');
          await failDraftWrites(page);
          await field(page, 'SUMMARY').fill('Lost: ${SUMMARY}');
          await page.getByRole('link', { name: 'All calendars' }).click();
          await leaveDialog(page).waitFor();
          await check('leave question');
        } finally {
          await context.close();
        }
      }
    }
    expect(found, found.join('\n')).toEqual([]);
  });
});

// Anki packages imported in Chromium: the fixtures made with the official Anki library (current
// .apkg, legacy .apkg, .colpkg) chosen in the import dialog, read in the Worker, imported, and
// each deck's "N due" on the deck list compared with what Anki said for the same collection and
// moment; a file that is not a deck refused in words; the dialog with a package read has no axe
// violations on a phone and a desktop, light and dark.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { useBrowser } from './support/browser';
import { useServer } from './support/server';
import { axe, describeViolations } from './support/axe';
import { seed } from './flashcards-support/seed';

const FIXTURES = fileURLToPath(new URL('./fixtures/anki/', import.meta.url));

interface AnkiFacts {
  now: number;
  decks: Record<string, { cards: number; newCards: number; new: number; learn: number; review: number }>;
}

const facts = (name: string) => JSON.parse(readFileSync(`${FIXTURES}${name}.json`, 'utf8')) as AnkiFacts;

describe('flashcards: Anki package import', () => {
  const url = useServer();
  const b = useBrowser();
  beforeEach(() => {
    b.page.setDefaultTimeout(20_000);
  });

  const dialog = (page: Page) => page.getByRole('dialog', { name: 'Import decks' });

  async function choosePackage(page: Page, name: string, now: number) {
    await page.clock.install({ time: new Date(now) });
    await seed(page, url(), []);
    await page.goto(url('/flashcards'));
    await page.getByRole('heading', { name: 'Your Decks' }).waitFor();
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await dialog(page).waitFor();
    await dialog(page)
      .getByLabel('Or choose a file')
      .setInputFiles({ name, mimeType: 'application/octet-stream', buffer: readFileSync(FIXTURES + name) });
  }

  it.each(['current.apkg', 'legacy.apkg', 'collection.colpkg'])('imports %s with the due counts Anki shows', async (name) => {
    const page = b.page;
    const anki = facts(name);
    await choosePackage(page, name, anki.now);
    const count = Object.keys(anki.decks).length;
    await dialog(page).getByText(`${count} decks to import:`).waitFor();
    await dialog(page).getByText('Skipped 1 image and 1 sound: media is not imported, the cards keep their text.').waitFor();
    await dialog(page).getByRole('button', { name: 'Import', exact: true }).click();
    await dialog(page).waitFor({ state: 'hidden' });
    for (const [deck, counts] of Object.entries(anki.decks)) {
      const item = page.getByRole('listitem', { name: deck, exact: true });
      await expect(item.locator('.due-badge').textContent(), deck).resolves.toBe(`${counts.newCards + counts.learn + counts.review} due`);
    }
  });

  it('refuses a file that is not a deck, saying why', async () => {
    const page = b.page;
    await page.goto(url('/flashcards'));
    await page.getByRole('heading', { name: 'Your Decks' }).waitFor();
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await dialog(page)
      .getByLabel('Or choose a file')
      .setInputFiles({ name: 'notes.apkg', mimeType: 'application/octet-stream', buffer: Buffer.from('front\tback\n') });
    await dialog(page)
      .getByRole('alert')
      .getByText(/not an Anki package/)
      .waitFor();
    await expect(dialog(page).getByRole('button', { name: 'Import', exact: true }).isDisabled()).resolves.toBe(true);
  });

  it('moves nothing while the package is read and its decks listed', async () => {
    const page = b.page;
    const anki = facts('current.apkg');
    await page.setViewportSize({ width: 360, height: 740 });
    await page.addInitScript(() => {
      const win = window as unknown as { shifts: { value: number; input: boolean; sources: string[] }[] };
      win.shifts = [];
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries() as unknown as { value: number; hadRecentInput: boolean; sources: { node?: Node }[] }[]) {
          win.shifts.push({
            value: entry.value,
            input: entry.hadRecentInput,
            sources: entry.sources.map((s) => (s.node as Element | undefined)?.className ?? '?'),
          });
        }
      }).observe({ type: 'layout-shift', buffered: true });
    });
    await choosePackage(page, 'current.apkg', anki.now);
    await dialog(page).getByText('decks to import:').waitFor();
    await page.clock.runFor(1000);
    const shifts = await page.evaluate(() => (window as unknown as { shifts: { value: number; input: boolean; sources: string[] }[] }).shifts);
    expect(shifts.filter((shift) => !shift.input && shift.value > 0.001)).toEqual([]);
  });

  it('has no axe violations with a package read, on a phone and a desktop, light and dark', async () => {
    const found: string[] = [];
    const anki = facts('current.apkg');
    for (const device of [
      { name: 'phone', options: { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true } },
      { name: 'desktop', options: { viewport: { width: 1280, height: 800 } } },
    ]) {
      for (const scheme of ['light', 'dark'] as const) {
        const context: BrowserContext = await b.browser.newContext({ ...device.options, colorScheme: scheme });
        try {
          const page = await context.newPage();
          page.setDefaultTimeout(20_000);
          await choosePackage(page, 'current.apkg', anki.now);
          await dialog(page).getByText('decks to import:').waitFor();
          found.push(...describeViolations(`${device.name} ${scheme}`, await axe(page)));
        } finally {
          await context.close();
        }
      }
    }
    expect(found).toEqual([]);
  });
});

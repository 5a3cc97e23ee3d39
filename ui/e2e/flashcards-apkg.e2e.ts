// Anki packages imported in Chromium: the fixtures made with the official Anki library (current
// .apkg, legacy .apkg, .colpkg) chosen in the import dialog, read in the Worker, imported, and
// each deck's "N due" on the deck list compared with what Anki said for the same collection and
// moment; each deck's languages guessed from the package and changeable before storing, and no
// optional field switched on that the package has not; the paste box focused on a desktop only;
// a file that is not a deck refused in words; the dialog with a package read has no axe
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
    await dialog(page).getByText('With 3 pictures and 3 sounds.').waitFor();
    await dialog(page).getByRole('button', { name: 'Import', exact: true }).click();
    await dialog(page).waitFor({ state: 'hidden' });
    for (const [deck, counts] of Object.entries(anki.decks)) {
      const item = page.getByRole('listitem', { name: deck, exact: true });
      await expect(item.locator('.due-badge').textContent(), deck).resolves.toBe(`${counts.newCards + counts.learn + counts.review} due`);
    }
  });

  it('guesses each deck’s languages, lets them be changed before storing, and stores no empty optional fields', async () => {
    const page = b.page;
    await page.setViewportSize({ width: 360, height: 740 });
    await choosePackage(page, 'current.apkg', facts('current.apkg').now);
    const plan = dialog(page);
    await plan.getByText('4 decks to import:').waitFor();
    // A package is one format: the text formats' select is not offered for it.
    await expect(plan.getByRole('combobox', { name: 'Format' }).count()).resolves.toBe(0);
    await plan.getByText('Anki package (decks, cards and reviews)').waitFor();
    const spanish = plan.getByRole('listitem').filter({ hasText: /^Spanish ·/ });
    await expect(spanish.textContent()).resolves.toContain('Spanish · ES → EN');
    await spanish.getByText('Languages: Spanish (from the cards’ text) → English (from the cards’ text)').waitFor();
    const child = plan.getByRole('listitem').filter({ hasText: /^Parent::Child ·/ });
    await child.getByText(/^Languages: German \(from the deck’s name or tags\)/).click();
    await child.getByRole('combobox', { name: 'Target language of Parent::Child' }).selectOption('nl');
    await expect(child.textContent()).resolves.toContain('Parent::Child · DE → NL');
    await plan.getByRole('button', { name: 'Import', exact: true }).click();
    await plan.waitFor({ state: 'hidden' });

    const stored = await page.evaluate(() => {
      const ids = JSON.parse(localStorage.getItem('decks:index') ?? '[]') as string[];
      return ids.map((id) => JSON.parse(localStorage.getItem(`decks:${id}`) ?? '{}') as Record<string, unknown>);
    });
    const byName = new Map(stored.map((deck) => [deck.name, deck]));
    expect(byName.get('Spanish')).toMatchObject({ sourceLang: 'es', targetLang: 'en' });
    expect(byName.get('Parent::Child')).toMatchObject({ sourceLang: 'de', targetLang: 'nl' });
    for (const deck of stored) expect(deck).toMatchObject({ pronunciationField: false, genderField: false, exampleField: false });
    await page.getByRole('listitem', { name: 'Spanish', exact: true }).locator('.pill--accent').getByText('ES → EN').waitFor();

    // The phone's editor shows each card's front, back and tags, no empty pronunciation, gender or example.
    await page.getByRole('link', { name: 'Edit Spanish', exact: true }).click();
    await page.getByRole('textbox', { name: 'Deck name' }).waitFor();
    const fields = await page.getByRole('textbox', { name: /^Card 1 / }).evaluateAll((inputs) => inputs.map((input) => input.getAttribute('aria-label')));
    expect(fields).toEqual(['Card 1 front', 'Card 1 back', 'Card 1 tags, separated by spaces']);
  });

  it('says beside "N cards" what practice counts: a cloze card with two gaps is practised as two', async () => {
    const page = b.page;
    const cards = Array.from({ length: 11 }, (_, i) => ({ front: `Wort ${i}`, back: `word ${i}` }));
    await seed(page, url(), [{ id: 'deck-cloze', name: 'Sätze', cards: [...cards, { front: 'Der {{c1::Hund}} {{c2::bellt}}.', back: '' }] }]);
    await page.goto(url('/flashcards'));
    const item = page.getByRole('listitem', { name: 'Sätze', exact: true });
    await item.getByText('12 cards', { exact: true }).waitFor();
    await item.getByText('13 to practice: 1 cloze card has 2 gaps, each practiced as a card of its own').waitFor();
    await expect(item.locator('.due-badge').textContent()).resolves.toBe('13 due');
    await item.getByRole('link', { name: 'Practice Sätze' }).click();
    await page.waitForFunction(() => document.querySelector('.practice__progress .count')?.textContent === '0 / 13');
  });

  it('focuses the paste box on a desktop only: a phone’s keyboard stays down until the learner types', async () => {
    const page = b.page;
    await seed(page, url(), []);
    for (const [viewport, touch, focused] of [
      [{ width: 1280, height: 800 }, false, 'TEXTAREA'],
      [{ width: 360, height: 740 }, true, 'H2'],
    ] as const) {
      const context = await b.browser.newContext({ viewport, hasTouch: touch, isMobile: touch });
      try {
        const p = await context.newPage();
        await p.goto(url('/flashcards'));
        await p.getByRole('heading', { name: 'Your Decks' }).waitFor();
        await p.getByRole('button', { name: 'Import', exact: true }).click();
        await dialog(p).waitFor();
        await expect(p.evaluate(() => document.activeElement?.tagName)).resolves.toBe(focused);
      } finally {
        await context.close();
      }
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
          // One deck's languages open, the others closed.
          await dialog(page)
            .getByText(/^Languages: Spanish/)
            .click();
          found.push(...describeViolations(`${device.name} ${scheme}`, await axe(page)));
        } finally {
          await context.close();
        }
      }
    }
    expect(found).toEqual([]);
  });
});

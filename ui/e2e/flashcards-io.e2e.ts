// Import, export and pronunciation of the flashcard tool in Chromium against the real binary:
// a deck exported and imported back (new id, same content), a pasted Quizlet list, a CSV with
// semicolons and a BOM, an error naming its line, the backup reminder, and the speaker button
// with window.speechSynthesis stubbed (headless Chromium has no voices of its own).
import { readFile } from 'node:fs/promises';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Download, Page } from 'playwright-core';
import { useBrowser } from './support/browser';
import { useServer } from './support/server';
import { FRENCH, readStorage, seed, type SeedDeck } from './flashcards-support/seed';
import { derivedGuid } from '../src/flashcards/guid';

interface StoredDeck {
  id: string;
  name: string;
  sourceLang: string;
  targetLang: string;
  cards: { id: string; front: string; back: string; pronunciation: string; gender: string; example: string }[];
}

const DAY = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY).toISOString();

const DUTCH: SeedDeck = {
  id: 'deck-dutch',
  name: 'Dutch words',
  sourceLang: 'en',
  targetLang: 'nl',
  cards: [{ front: 'house', back: 'huis' }],
};

describe('flashcards: import, export and pronunciation', () => {
  const url = useServer();
  const b = useBrowser();
  beforeEach(() => {
    b.page.setDefaultTimeout(10_000);
  });

  async function openList(page: Page, decks: SeedDeck[], raw: Record<string, string> = {}) {
    await seed(page, url(), decks, raw);
    await page.goto(url('/flashcards'));
    await page.getByRole('heading', { name: 'Your Decks' }).waitFor();
  }

  async function downloaded(page: Page, click: () => Promise<void>): Promise<{ download: Download; text: string }> {
    const [download] = await Promise.all([page.waitForEvent('download'), click()]);
    const path = await download.path();
    return { download, text: await readFile(path, 'utf8') };
  }

  const dialog = (page: Page) => page.getByRole('dialog', { name: 'Import decks' });

  async function openImport(page: Page) {
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await dialog(page).waitFor();
  }

  const importButton = (page: Page) => dialog(page).getByRole('button', { name: 'Import', exact: true });

  async function index(page: Page): Promise<string[]> {
    return (await readStorage(page, 'decks:index')) as string[];
  }

  it('exports a deck as JSON and imports it back as a new deck with the same content', async () => {
    const page = b.page;
    await openList(page, [FRENCH]);
    const { download, text } = await downloaded(page, () =>
      page
        .getByRole('button', { name: 'Export French basics', exact: true })
        .click()
        .then(() => page.getByRole('menuitem', { name: 'Export as JSON' }).click()),
    );
    expect(download.suggestedFilename()).toBe('french-basics.json');
    expect(JSON.parse(text)).toMatchObject({ type: 'hearth-decks', version: 1, decks: [{ id: 'deck-french', type: 'deck', version: 1 }] });

    await openImport(page);
    await dialog(page)
      .getByLabel('Or choose a file')
      .setInputFiles({ name: 'french-basics.json', mimeType: 'application/json', buffer: Buffer.from(text) });
    await dialog(page).getByText('1 deck to import:').waitFor();
    await dialog(page).getByText('already here: added as a copy').waitFor();
    // Nothing is stored before confirming.
    await expect(index(page)).resolves.toEqual(['deck-french']);
    await importButton(page).click();
    await page.getByText('Imported “French basics” with 3 cards.').waitFor();
    await expect(page.locator('.deck-card').count()).resolves.toBe(2);

    const ids = await index(page);
    expect(ids).toHaveLength(2);
    const [newId] = ids;
    expect(newId).not.toBe('deck-french');
    expect(ids[1]).toBe('deck-french');
    const original = (await readStorage(page, 'decks:deck-french')) as StoredDeck;
    const copy = (await readStorage(page, `decks:${newId ?? ''}`)) as StoredDeck;
    // Cards stored before guids get, on import, the guid an export of their deck derives.
    expect(copy).toEqual({ ...original, id: newId, cards: original.cards.map((card) => ({ ...card, guid: derivedGuid('deck-french', card.id) })) });
  });

  it('exports all decks as one backup, and a deck as Anki text', async () => {
    const page = b.page;
    await openList(page, [FRENCH, DUTCH]);
    const all = await downloaded(page, () => page.getByRole('button', { name: 'Export', exact: true }).click());
    expect(all.download.suggestedFilename()).toMatch(/^hearth-decks-\d{4}-\d{2}-\d{2}\.json$/);
    const backup = JSON.parse(all.text) as { decks: { id: string }[] };
    expect(backup.decks.map((deck) => deck.id).sort()).toEqual(['deck-dutch', 'deck-french']);
    expect(Date.now() - Date.parse((await readStorage(page, 'decks:lastExport')) as string)).toBeLessThan(60_000);

    const anki = await downloaded(page, () =>
      page
        .getByRole('button', { name: 'Export French basics', exact: true })
        .click()
        .then(() => page.getByRole('menuitem', { name: 'Export as Anki text' }).click()),
    );
    expect(anki.download.suggestedFilename()).toBe('french-basics.txt');
    expect(anki.text.split('\n').slice(0, 4)).toEqual([
      '#separator:tab',
      '#html:false',
      '#columns:Front\tBack\tPronunciation\tGender\tExample',
      'cat\tchat\t/ʃa/\tm\tLe chat dort.',
    ]);

    // The Anki text imports back with the same cards.
    await openImport(page);
    await dialog(page).getByLabel('Paste text').fill(anki.text);
    await expect(dialog(page).getByLabel('Format').locator('option:checked').textContent()).resolves.toBe('Detect automatically (Anki plain text)');
    await dialog(page).getByLabel('Deck name').fill('French again');
    await importButton(page).click();
    await page.getByText('Imported “French again” with 3 cards.').waitFor();
    const [id] = await index(page);
    const imported = (await readStorage(page, `decks:${id ?? ''}`)) as StoredDeck;
    const original = (await readStorage(page, 'decks:deck-french')) as StoredDeck;
    const texts = (deck: StoredDeck) => deck.cards.map(({ front, back, pronunciation, gender, example }) => ({ front, back, pronunciation, gender, example }));
    expect(texts(imported)).toEqual(texts(original));
  });

  it('imports a pasted Quizlet list with the chosen separators', async () => {
    const page = b.page;
    await openList(page, []);
    await openImport(page);
    await dialog(page).getByLabel('Format').selectOption('quizlet');
    await dialog(page).getByLabel('Between term and definition').selectOption('comma');
    await dialog(page).getByLabel('Between cards').selectOption('semicolon');
    await dialog(page).getByLabel('Paste text').fill('house,huis, het huis;cat,kat;\ndog,hond');
    const rows = dialog(page).locator('.import-dialog__table tbody tr');
    await expect(rows.count()).resolves.toBe(3);
    await expect(rows.nth(0).locator('td').allTextContents()).resolves.toEqual(['1', 'house', 'huis, het huis']);
    await dialog(page).getByText('3 cards to import:').waitFor();
    // A name is needed for a new deck.
    await expect(importButton(page).isDisabled()).resolves.toBe(true);
    await dialog(page).getByLabel('Deck name').fill('Quizlet Dutch');
    await dialog(page).getByLabel('Target language').selectOption('nl');
    await importButton(page).click();
    await page.getByText('Imported “Quizlet Dutch” with 3 cards.').waitFor();
    await page.getByRole('heading', { name: 'Quizlet Dutch' }).waitFor();
    const [id] = await index(page);
    const deck = (await readStorage(page, `decks:${id ?? ''}`)) as StoredDeck;
    expect(deck).toMatchObject({ name: 'Quizlet Dutch', sourceLang: 'en', targetLang: 'nl', type: 'deck', version: 1 });
    expect(deck.cards.map((card) => [card.front, card.back])).toEqual([
      ['house', 'huis, het huis'],
      ['cat', 'kat'],
      ['dog', 'hond'],
    ]);
  });

  it('imports a CSV file with semicolons and a BOM, with a header row', async () => {
    const page = b.page;
    await openList(page, []);
    await openImport(page);
    const csv = '\ufeffFront;Back;Gender\r\nhouse;maison;f\r\n"dog; loyal";"chien ""fidèle""";m\r\n';
    await dialog(page)
      .getByLabel('Or choose a file')
      .setInputFiles({ name: 'french_words.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await dialog(page).getByText('Loaded french_words.csv').waitFor();
    await expect(dialog(page).getByLabel('Separator').locator('option:checked').textContent()).resolves.toBe('Detect automatically (Semicolon)');
    await expect(dialog(page).getByLabel('Deck name').inputValue()).resolves.toBe('french words');
    await expect(dialog(page).locator('.import-dialog__table tbody tr').nth(1).locator('td').allTextContents()).resolves.toEqual([
      '3',
      'dog; loyal',
      'chien "fidèle"',
      'm',
    ]);
    await importButton(page).click();
    await page.getByText('Imported “french words” with 2 cards.').waitFor();
    const [id] = await index(page);
    const deck = (await readStorage(page, `decks:${id ?? ''}`)) as StoredDeck;
    expect(deck.cards.map((card) => [card.front, card.back, card.gender])).toEqual([
      ['house', 'maison', 'f'],
      ['dog; loyal', 'chien "fidèle"', 'm'],
    ]);
  });

  it('shows an error with its line number, skips rows without a back, and saves nothing on Cancel', async () => {
    const page = b.page;
    await openList(page, [FRENCH]);
    await openImport(page);
    const text = dialog(page).getByLabel('Paste text');
    await text.fill('cat,chat\ndog,chien\n"bird,oiseau\n');
    await expect(dialog(page).getByRole('alert').textContent()).resolves.toBe('Line 3: a quoted field is not closed (a " is missing)');
    await expect(importButton(page).isDisabled()).resolves.toBe(true);

    await text.fill('cat,chat\nlonely\ndog,chien');
    await dialog(page).getByText('Line 2: only one field was found, so there is no back; the row is skipped').waitFor();
    await dialog(page).getByText('2 cards to import:').waitFor();

    await text.fill('{\n  "type": "deck",\n  "name": oops\n}');
    await expect(dialog(page).getByRole('alert').textContent()).resolves.toBe('Line 3: this is not valid JSON: unexpected "o"');

    await dialog(page).getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog(page).isHidden()).resolves.toBe(true);
    await expect(index(page)).resolves.toEqual(['deck-french']);
  });

  it('reminds about a backup after 30 days, until exported or dismissed, and never without decks', async () => {
    const page = b.page;
    const reminder = page.getByRole('note', { name: 'Backup reminder' });

    await openList(page, [], { 'decks:lastExport': JSON.stringify(daysAgo(90)) });
    await page.getByRole('heading', { name: 'No decks yet' }).waitFor();
    await expect(reminder.count()).resolves.toBe(0);

    await openList(page, [FRENCH], { 'decks:lastExport': JSON.stringify(daysAgo(10)) });
    await page.locator('.deck-card').first().waitFor();
    await expect(reminder.count()).resolves.toBe(0);

    await openList(page, [FRENCH], { 'decks:lastExport': JSON.stringify(daysAgo(40.2)) });
    await reminder.getByText('Your last backup was 40 days ago.', { exact: false }).waitFor();
    const { download } = await downloaded(page, () => reminder.getByRole('button', { name: 'Export backup' }).click());
    expect(download.suggestedFilename()).toMatch(/^hearth-decks-/);
    await expect(reminder.count()).resolves.toBe(0);
    await page.reload();
    await page.locator('.deck-card').first().waitFor();
    await expect(reminder.count()).resolves.toBe(0);

    // Never exported, with decks older than 30 days: reminded; dismissing keeps it away.
    await openList(page, [{ ...FRENCH, createdAt: daysAgo(45) }]);
    await reminder.getByText('Your decks have not been backed up yet.', { exact: false }).waitFor();
    await reminder.getByRole('button', { name: 'Dismiss the backup reminder' }).click();
    await expect(reminder.count()).resolves.toBe(0);
    await page.reload();
    await page.locator('.deck-card').first().waitFor();
    await expect(reminder.count()).resolves.toBe(0);
  });

  describe('pronunciation', () => {
    interface Spoken {
      text: string;
      lang: string;
      voice: string | null;
    }

    /** Replaces the browser's speech synthesis with one that has `voices` (more can arrive later). */
    async function stubSpeech(page: Page, voices: { lang: string; name: string }[]) {
      await page.addInitScript((initial) => {
        type Voice = { lang: string; name: string; localService: boolean; default: boolean; voiceURI: string };
        const toVoice = (v: { lang: string; name: string }): Voice => ({ ...v, localService: true, default: false, voiceURI: v.name });
        let list = initial.map(toVoice);
        const spoken: unknown[] = [];
        const target = new EventTarget();
        // Counts the pages' listeners, so a test knows the page is ready for voices to change.
        const listen = target.addEventListener.bind(target);
        let listeners = 0;
        target.addEventListener = (...args: Parameters<EventTarget['addEventListener']>) => {
          listeners += 1;
          listen(...args);
        };
        const synth = Object.assign(target, {
          getVoices: () => list,
          speak: (u: { text: string; lang: string; voice: Voice | null }) => spoken.push({ text: u.text, lang: u.lang, voice: u.voice?.name ?? null }),
          cancel: () => undefined,
          pause: () => undefined,
          resume: () => undefined,
          speaking: false,
          pending: false,
          paused: false,
        });
        class Utterance {
          lang = '';
          voice: Voice | null = null;
          constructor(readonly text: string) {}
        }
        Object.defineProperty(window, 'speechSynthesis', { value: synth, configurable: true });
        Object.defineProperty(window, 'SpeechSynthesisUtterance', { value: Utterance, configurable: true, writable: true });
        Object.assign(window, {
          __spoken: spoken,
          __voiceListeners: () => listeners,
          __addVoices: (more: { lang: string; name: string }[]) => {
            list = [...list, ...more.map(toVoice)];
            target.dispatchEvent(new Event('voiceschanged'));
          },
        });
      }, voices);
    }

    const spoken = (page: Page) => page.evaluate(() => (window as unknown as { __spoken: Spoken[] }).__spoken);
    const speaker = (page: Page) => page.locator('.speak-button');
    const isFlipped = (page: Page) => page.locator('.flipcard--current').evaluate((el) => el.classList.contains('is-flipped'));

    async function practise(page: Page) {
      await seed(page, url(), [{ ...FRENCH, cards: [{ front: 'cat', back: 'chat' }] }]);
      await page.goto(url(`/flashcards/${FRENCH.id}/practice`));
      await page.locator('.flipcard--current').waitFor();
    }

    it('hides the speaker when no voice speaks the language', async () => {
      const page = b.page;
      await stubSpeech(page, []);
      await practise(page);
      // The voices are read on the first render; once the page listens for changes it is settled.
      await page.waitForFunction(() => (window as unknown as { __voiceListeners: () => number }).__voiceListeners() > 0);
      await expect(speaker(page).count()).resolves.toBe(0);
    });

    it('speaks each face in its language on a click or a key, without flipping the card', async () => {
      const page = b.page;
      await stubSpeech(page, [
        { lang: 'en-US', name: 'American' },
        { lang: 'en-GB', name: 'British' },
        { lang: 'de-DE', name: 'German' },
      ]);
      await practise(page);
      const front = page.getByRole('button', { name: 'Pronounce “cat” in English' });
      await front.waitFor();
      // Nothing is said without a user action.
      await expect(spoken(page)).resolves.toEqual([]);
      await front.click();
      await expect(spoken(page)).resolves.toEqual([{ text: 'cat', lang: 'en-GB', voice: 'British' }]);
      await expect(isFlipped(page)).resolves.toBe(false);

      // Keyboard: Enter and Space press the speaker, not the card.
      await front.focus();
      await page.keyboard.press('Enter');
      await page.keyboard.press('Space');
      await expect(spoken(page).then((list) => list.length)).resolves.toBe(3);
      await expect(isFlipped(page)).resolves.toBe(false);

      // The back is French: no voice yet, so no speaker, until one arrives.
      await page.locator('.flipcard--current').click();
      await page.waitForFunction(() => document.querySelector('.flipcard--current')?.classList.contains('is-flipped'));
      await expect(speaker(page).count()).resolves.toBe(0);
      await page.evaluate(() =>
        (window as unknown as { __addVoices: (v: { lang: string; name: string }[]) => void }).__addVoices([{ lang: 'fr-FR', name: 'Amélie' }]),
      );
      const back = page.getByRole('button', { name: 'Pronounce “chat” in French' });
      await back.click();
      await expect(spoken(page).then((list) => list.at(-1))).resolves.toEqual({ text: 'chat', lang: 'fr-FR', voice: 'Amélie' });
      await expect(isFlipped(page)).resolves.toBe(true);
    });
  });
});

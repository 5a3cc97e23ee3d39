// "Export as Anki package (.apkg)" checked with the official Anki library: decks seeded in
// Chromium (a two-way deck with tags, a picture and a sound in the media store, a suspended card;
// a one-way deck with a cloze card of two deletions; a review history for both) exported from
// each deck's Export menu, then imported by `anki` from PyPI (tests/anki/check_export.py, in
// target/anki-venv) into a fresh collection: notes, note types, fields, tags, cards, media bytes,
// review count, each card's FSRS memory state and due, and each deck's due count against the "N
// due" Hearth shows at the same moment. Then the round trip: the Anki library's own package
// (e2e/fixtures/anki/current.apkg) imported into Hearth, each deck exported back, and imported
// over the original adds no note. The export's message has no axe violations, light and dark,
// phone and desktop. Needs HEARTH_ANKI_PYTHON (make e2e sets it from tests/anki/venv.sh).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowser } from './support/browser';
import { useServer } from './support/server';
import { axe, describeViolations } from './support/axe';
import { seed, type SeedDeck } from './flashcards-support/seed';
import { derivedGuid } from '../src/flashcards/guid';
import { deriveItems, type ReviewEntry } from '../src/flashcards/srs/reviewLog';
import type { ItemState } from '../src/flashcards/srs/schedule';

const FIXTURES = fileURLToPath(new URL('./fixtures/anki/', import.meta.url));
const DAY = 86_400_000;
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082',
  'hex',
);
const MP3 = Buffer.from('ID3\x03\x00\x00\x00\x00\x00\x00 a short bark, not really a sound', 'latin1');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

interface AnkiCard {
  guid: string;
  deck: string;
  ord: number;
  type: number;
  queue: number;
  dueInDays: number | null;
  dueAt: number | null;
  ivl: number;
  reps: number;
  lapses: number;
  stability: number | null;
  difficulty: number | null;
}

interface AnkiFacts {
  anki: string;
  imports: { new: number; updated: number; duplicate: number; conflicting: number }[];
  notesBefore?: number;
  notesAfter: number;
  noteTypes: Record<string, string[]>;
  notes: { guid: string; noteType: string; fields: string[]; tags: string[] }[];
  cards: AnkiCard[];
  reviews: number;
  media: Record<string, string>;
  counts: Record<string, { new: number; learn: number; review: number }>;
  /** When Anki counted (epoch ms). */
  now: number;
}

function anki(packages: string[], original?: string): AnkiFacts {
  const python = process.env.HEARTH_ANKI_PYTHON;
  if (!python) throw new Error('HEARTH_ANKI_PYTHON is not set: run `bash tests/anki/venv.sh` (make e2e does) and pass the Python it prints');
  const script = fileURLToPath(new URL('../../tests/anki/check_export.py', import.meta.url));
  const args = [script, ...(original ? ['--original', original] : []), ...packages];
  return JSON.parse(execFileSync(python, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })) as AnkiFacts;
}

const utcDay = (at: number) => Math.floor(at / DAY);

describe('flashcards: Export as Anki package (.apkg), checked with the Anki library', () => {
  const url = useServer();
  // Anki's days in the checker are UTC days: the browser's are too.
  const b = useBrowser({ timezoneId: 'UTC', acceptDownloads: true });
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hearth-apkg-'));
  });
  beforeEach(() => {
    b.page.setDefaultTimeout(20_000);
  });

  /**
   * Exports the deck `name` from its Export menu into `file`; waits for the message (`said`, or
   * any for this deck) and dismisses it unless `keep`. Answers the path and the download's name.
   */
  async function exportDeck(page: Page, name: string, file: string, said?: string, keep = false): Promise<{ path: string; suggested: string }> {
    const item = page.getByRole('listitem', { name, exact: true });
    await item.getByRole('button', { name: `Export ${name}`, exact: true }).click();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('menuitem', { name: 'Export as Anki package (.apkg)' }).click()]);
    const path = join(dir, file);
    await download.saveAs(path);
    const message = page.getByRole('status').filter({ hasText: `Exported “${name}” as an Anki package` });
    await message.waitFor();
    if (said !== undefined) await expect(message.textContent()).resolves.toBe(said);
    if (!keep) await page.getByRole('button', { name: 'Dismiss the export message' }).click();
    return { path, suggested: download.suggestedFilename() };
  }

  /** Marks at noon UTC `days` ago plus `minutes`, moved back a day at a time until no review is due later today (Anki counts those today already; Hearth at their time). */
  function history(
    now: number,
    plan: [key: string, days: number, minutes: number, grade: 'good' | 'again'][],
  ): { log: ReviewEntry[]; items: Record<string, ItemState> } {
    for (let shift = 0; shift < 30; shift += 1) {
      const noon = utcDay(now) * DAY + 12 * 3_600_000;
      const log = plan
        .map(([key, days, minutes, mark]): ReviewEntry => [key, noon - (days + shift) * DAY + minutes * 60_000, mark])
        .sort((a, b2) => a[1] - b2[1]);
      const items = deriveItems({}, log);
      const laterToday = Object.values(items).some((state) => state[0] > now && utcDay(state[0]) === utcDay(now));
      if (!laterToday) return { log, items };
    }
    throw new Error('no history without a review due later today');
  }

  it('exports decks Anki imports with their notes, cards, media, schedule, review log and due counts', async () => {
    const page = b.page;
    const now = Date.now();
    const words: SeedDeck = {
      id: 'deck-w',
      name: 'Wörter',
      sourceLang: 'de',
      targetLang: 'en',
      bidirectional: true,
      cards: [
        { id: 'w0', front: 'der Hund', back: 'the dog', tags: ['tiere', 'nomen'] },
        { id: 'w1', front: 'die Katze', back: 'the cat', tags: ['tiere'] },
        { id: 'w2', front: 'das Haus & <Hof>', back: 'the house\nand yard' },
        { id: 'w3', front: 'der Baum', back: 'the tree' },
        { id: 'w4', front: 'der Tisch', back: 'the table', suspended: true },
      ],
    };
    const sentences: SeedDeck = {
      id: 'deck-s',
      name: 'Sätze',
      sourceLang: 'de',
      targetLang: 'en',
      cards: [
        { id: 's0', front: 'Der {{c1::Hund}} {{c2::bellt}}.', back: '' },
        { id: 's1', front: 'laufen', back: 'to run', tags: ['verben'] },
        { id: 's2', front: 'gehen', back: 'to go' },
      ],
    };
    const guids: Record<string, string> = {
      w0: 'Hund!g#1a',
      w1: 'Katze$2bC',
      w2: 'Haus%3cDe',
      w4: 'Tisch&4dE',
      s0: 'Satz(5eFg',
      s1: 'lauf)6fGh',
      s2: 'geh*7gHiJ',
    };
    const picture = { hash: sha256(PNG), name: 'Hund.png', kind: 'image', field: 'front' };
    const sound = { hash: sha256(MP3), name: 'Hund bellt ü.mp3', kind: 'sound', field: 'back' };
    const withExtras = (deck: SeedDeck) => ({
      ...deck,
      cards: deck.cards.map((card) => ({
        ...card,
        ...(card.id && guids[card.id] ? { guid: guids[card.id] } : {}),
        ...(card.id === 'w0' ? { media: [picture, sound] } : {}),
      })),
    });
    const wordsLog = history(now, [
      ['w0', 10, 0, 'good'],
      ['w0', 10, 10, 'good'],
      ['w0', 3, 0, 'good'],
      ['w0:reverse', 9, 0, 'again'],
      ['w0:reverse', 9, 1, 'good'],
      ['w0:reverse', 9, 12, 'good'],
      ['w1', 5, 0, 'good'],
      ['w1', 5, 10, 'good'],
      ['w1:reverse', 1, 0, 'again'],
      ['w2', 20, 0, 'good'],
      ['w2', 20, 10, 'good'],
      ['w2', 15, 0, 'again'],
      ['w4', 4, 0, 'good'],
      ['w4', 4, 10, 'good'],
    ]);
    const sentencesLog = history(now, [
      ['s0', 6, 0, 'good'],
      ['s0', 6, 10, 'good'],
      ['s0:c2', 2, 0, 'again'],
      ['s2', 30, 0, 'good'],
      ['s2', 30, 10, 'good'],
      ['s2', 25, 0, 'good'],
    ]);
    const record = (log: ReviewEntry[]) => JSON.stringify({ type: 'reviews', version: 1, newPerDay: 20, seeds: {}, items: {}, log });
    await seed(page, url(), [withExtras(words), withExtras(sentences)], {
      'reviews:deck-w': record(wordsLog.log),
      'reviews:deck-s': record(sentencesLog.log),
    });
    // The picture and the sound in the media store, as the media part keeps them.
    await page.evaluate(
      async (files) => {
        const db = await new Promise<IDBDatabase>((resolve, reject) => {
          const open = indexedDB.open('hearth-media', 1);
          open.onupgradeneeded = () => open.result.createObjectStore('files', { keyPath: 'hash' });
          open.onsuccess = () => resolve(open.result);
          open.onerror = () => reject(open.error ?? new Error('indexedDB'));
        });
        const tx = db.transaction('files', 'readwrite');
        for (const file of files) {
          const bytes = Uint8Array.from(file.bytes).buffer;
          tx.objectStore('files').put({ hash: file.hash, type: file.type, bytes, size: bytes.byteLength });
        }
        await new Promise((resolve) => (tx.oncomplete = resolve));
        db.close();
      },
      [
        { hash: picture.hash, type: 'image/png', bytes: [...PNG] },
        { hash: sound.hash, type: 'audio/mpeg', bytes: [...MP3] },
      ],
    );
    await page.goto(url('/flashcards'));
    await page.getByRole('heading', { name: 'Your Decks' }).waitFor();
    const badge = async (name: string) => (await page.getByRole('listitem', { name, exact: true }).locator('.due-badge').textContent()) ?? '';
    const shown = { Wörter: await badge('Wörter'), Sätze: await badge('Sätze') };

    const wordsFile = await exportDeck(page, 'Wörter', 'words.apkg', 'Exported “Wörter” as an Anki package: 5 notes, 10 cards, 14 reviews, 2 media files.');
    const sentencesFile = await exportDeck(page, 'Sätze', 'sentences.apkg', 'Exported “Sätze” as an Anki package: 3 notes, 4 cards, 6 reviews, 0 media files.');
    // The downloads are named after their decks.
    expect([wordsFile.suggested, sentencesFile.suggested]).toEqual(['worter.apkg', 'satze.apkg']);
    const facts = anki([wordsFile.path, sentencesFile.path]);

    // Notes: the guids kept (one derived for the card stored without one), of the right type, fields as written, tags.
    const byGuid = new Map(facts.notes.map((note) => [note.guid, note]));
    expect(facts.notes).toHaveLength(8);
    expect(byGuid.get('Hund!g#1a')).toMatchObject({ fields: ['der Hund <img src="Hund.png">', 'the dog [sound:Hund bellt ü.mp3]'], tags: ['nomen', 'tiere'] });
    expect(byGuid.get('Hund!g#1a')?.noteType).toMatch(/^Basic \(and reversed card\)\+*$/);
    expect(byGuid.get('Haus%3cDe')?.fields).toEqual(['das Haus &amp; &lt;Hof&gt;', 'the house<br>and yard']);
    expect(byGuid.get(derivedGuid('deck-w', 'w3'))?.fields).toEqual(['der Baum', 'the tree']);
    expect(byGuid.get('Satz(5eFg')).toMatchObject({ fields: ['Der {{c1::Hund}} {{c2::bellt}}.', ''] });
    expect(byGuid.get('Satz(5eFg')?.noteType).toMatch(/^Cloze\+*$/);
    expect(byGuid.get('lauf)6fGh')).toMatchObject({ fields: ['laufen', 'to run'], tags: ['verben'] });
    expect(byGuid.get('lauf)6fGh')?.noteType).toMatch(/^Basic\+*$/);
    const typeOf = (guid: string) => byGuid.get(guid)?.noteType ?? '';
    expect(facts.noteTypes[typeOf('Hund!g#1a')]).toEqual(['Front', 'Back']);
    expect(facts.noteTypes[typeOf('Satz(5eFg')]).toEqual(['Text', 'Back Extra']);

    // Media: the very bytes, under the names the cards gave them.
    expect(facts.media).toEqual({ 'Hund.png': sha256(PNG), 'Hund bellt ü.mp3': sha256(MP3) });
    expect(facts.reviews).toBe(wordsLog.log.length + sentencesLog.log.length);

    // Cards: each practice item once, with its schedule and FSRS memory state.
    const guidOf = (id: string) => guids[id] ?? derivedGuid(id.startsWith('w') ? 'deck-w' : 'deck-s', id);
    const keyOf = (card: AnkiCard) => {
      const id = [...Object.keys(guids), 'w3'].find((candidate) => guidOf(candidate) === card.guid) ?? '?';
      if (id === 's0') return card.ord === 0 ? 's0' : `s0:c${card.ord + 1}`;
      return card.ord === 1 ? `${id}:reverse` : id;
    };
    expect(facts.cards.map(keyOf).sort()).toEqual(
      ['w0', 'w0:reverse', 'w1', 'w1:reverse', 'w2', 'w2:reverse', 'w3', 'w3:reverse', 'w4', 'w4:reverse', 's0', 's0:c2', 's1', 's2'].sort(),
    );
    const states = { ...wordsLog.items, ...sentencesLog.items };
    for (const card of facts.cards) {
      const key = keyOf(card);
      const state = states[key];
      const suspended = key.startsWith('w4');
      if (!state) {
        expect([key, card.type, card.queue]).toEqual([key, 0, suspended ? -1 : 0]);
        continue;
      }
      const [due, stability, difficulty, , , reps, lapses, kind] = state;
      expect([key, card.type, card.reps, card.lapses]).toEqual([key, kind, reps, lapses]);
      expect(card.stability, key).toBeCloseTo(stability, 3);
      expect(card.difficulty, key).toBeCloseTo(difficulty, 2);
      if (kind === 2) {
        expect([key, card.queue, card.dueInDays]).toEqual([key, suspended ? -1 : 2, utcDay(due) - utcDay(facts.now)]);
      } else {
        expect([key, card.queue, card.dueAt]).toEqual([key, suspended ? -1 : 1, Math.floor(due / 1000)]);
      }
    }

    // The due counts: Anki's New + Learn + Due for each deck is Hearth's "N due".
    for (const [name, text] of Object.entries(shown)) {
      const counts = facts.counts[name];
      expect(counts, name).toBeDefined();
      expect(`${(counts?.new ?? 0) + (counts?.learn ?? 0) + (counts?.review ?? 0)} due`, name).toBe(text);
    }
  });

  it('adds no duplicate note when the export of an imported Anki package is imported over the original', async () => {
    const page = b.page;
    await seed(page, url(), []);
    await page.goto(url('/flashcards'));
    await page.getByRole('heading', { name: 'Your Decks' }).waitFor();
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Import decks' });
    await dialog.getByLabel('Or choose a file').setInputFiles({
      name: 'current.apkg',
      mimeType: 'application/octet-stream',
      buffer: readFileSync(`${FIXTURES}current.apkg`),
    });
    await dialog.getByText('4 decks to import:').waitFor();
    await dialog.getByRole('button', { name: 'Import', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
    const files: string[] = [];
    for (const [index, name] of ['Spanish', 'Parent', 'Parent::Child', 'Cloze'].entries())
      files.push((await exportDeck(page, name, `round-${index}.apkg`)).path);
    const facts = anki(files, `${FIXTURES}current.apkg`);
    // As many notes as the original holds (its JSON says how many Anki counted), before and after.
    const { notes } = JSON.parse(readFileSync(`${FIXTURES}current.apkg.json`, 'utf8')) as { notes: number };
    expect(facts.notesBefore).toBe(notes);
    expect(facts.notesAfter).toBe(notes);
    expect(facts.imports.map((log) => log.new)).toEqual([0, 0, 0, 0]);
  });

  it('has no axe violations with the export’s message shown, on a phone and a desktop, light and dark', async () => {
    const found: string[] = [];
    for (const device of [
      { name: 'phone', options: { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true } },
      { name: 'desktop', options: { viewport: { width: 1280, height: 800 } } },
    ]) {
      for (const scheme of ['light', 'dark'] as const) {
        const context = await b.browser.newContext({ ...device.options, colorScheme: scheme, acceptDownloads: true });
        try {
          const page = await context.newPage();
          page.setDefaultTimeout(20_000);
          await seed(page, url(), [{ id: 'deck-a', name: 'Animals', cards: [{ front: 'dog', back: 'chien' }] }]);
          await page.goto(url('/flashcards'));
          await page.getByRole('heading', { name: 'Your Decks' }).waitFor();
          await exportDeck(page, 'Animals', `axe-${device.name}-${scheme}.apkg`, undefined, true);
          const close = page.getByRole('button', { name: 'Dismiss the export message' });
          const box = await close.boundingBox();
          expect(Math.min(box?.width ?? 0, box?.height ?? 0)).toBeGreaterThanOrEqual(44);
          found.push(...describeViolations(`${device.name} ${scheme}`, await axe(page)));
          await close.click();
          await expect(page.getByRole('status').filter({ hasText: 'Exported' }).count()).resolves.toBe(0);
        } finally {
          await context.close();
        }
      }
    }
    expect(found).toEqual([]);
  });
});

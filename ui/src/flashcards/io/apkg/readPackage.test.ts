// The committed Anki packages (made by the official Anki library, e2e/fixtures/anki) read end to
// end with sql.js, and the due counts compared with what Anki said about the same collection.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import initSqlJs from 'sql.js';
import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { deckKeys, reviewDueCount } from '../../srs/due';
import { dueAt } from '../../srs/schedule';
import { BUDGETS, PackageError, type Budgets } from './budgets';
import { readPackage, type OpenDatabase } from './readPackage';
import { openWith } from './sqlJsDatabase';
import { skippedInWords } from './packageSummary';

const fixtures = fileURLToPath(new URL('../../../../e2e/fixtures/anki/', import.meta.url));

const openDatabase: OpenDatabase = async (bytes) => {
  return openWith(await initSqlJs(), bytes);
};

interface AnkiFacts {
  now: number;
  notes: number;
  cards: number;
  decks: Record<string, { cards: number; newCards: number; new: number; learn: number; review: number }>;
}

let counter = 0;
const makeId = () => `id-${(counter += 1)}`;

async function read(name: string) {
  const bytes = new Uint8Array(readFileSync(fixtures + name));
  const facts = JSON.parse(readFileSync(`${fixtures}${name}.json`, 'utf8')) as AnkiFacts;
  return { facts, result: await readPackage(bytes, openDatabase, makeId, new Date(facts.now)) };
}

describe.each(['current.apkg', 'legacy.apkg', 'collection.colpkg'])('%s', (name) => {
  it('has one deck per Anki deck, named as in Anki, with the due counts Anki shows', async () => {
    const { facts, result } = await read(name);
    expect(result.decks.map((deck) => deck.name).sort()).toEqual(Object.keys(facts.decks).sort());
    expect(result.summary.notes).toBe(facts.notes);
    expect(result.summary.cards).toBe(facts.cards);
    result.decks.forEach((deck, index) => {
      const anki = facts.decks[deck.name];
      const reviews = result.reviews[index];
      if (!anki || !reviews) throw new Error(`no facts for ${deck.name}`);
      const keys = deckKeys(deck);
      expect(keys.length, deck.name).toBe(anki.cards);
      const fresh = keys.filter((key) => !reviews.items[key]).length;
      const due = keys.filter((key) => reviews.items[key] && dueAt(reviews.items[key]) <= facts.now).length;
      expect(fresh, `${deck.name} new`).toBe(anki.newCards);
      expect(due, `${deck.name} learn + review`).toBe(anki.learn + anki.review);
      expect(reviewDueCount(keys, reviews, facts.now), `${deck.name} Review due`).toBe(anki.new + anki.learn + anki.review);
    });
  });

  it('maps note types, HTML, tags and media', async () => {
    const { result } = await read(name);
    const byName = new Map(result.decks.map((deck) => [deck.name, deck]));
    expect(byName.get('Parent')?.bidirectional).toBe(true);
    expect(byName.get('Spanish')?.bidirectional).toBe(false);
    const spanish = byName.get('Spanish')?.cards ?? [];
    expect(spanish.find((card) => card.front.startsWith('hola'))).toMatchObject({ front: 'hola & adiós\ntwo words', back: 'hello\n& goodbye' });
    expect(spanish.find((card) => card.front === 'peligro')?.back).toBe('danger <script> été');
    expect(spanish.find((card) => card.front === 'el gato' && card.back === 'the cat')).toBeDefined();
    const cloze = byName.get('Cloze')?.cards ?? [];
    expect(cloze.map((card) => card.front)).toContain('The {{c1::mitochondria::organelle}} is the powerhouse of the cell.');
    // Back Extra is empty in the fixture: the flip reveals the deletions, nothing is repeated on the back.
    expect(cloze.find((card) => card.front.startsWith('Paris'))?.back).toBe('');
    expect(byName.get('Parent::Child')?.cards[0]).toMatchObject({ front: 'Haus', back: 'house' });
    expect(result.summary).toMatchObject({ images: 5, sounds: 3, skippedCards: 0 });
    expect(result.mediaFiles).toBe(7);
    expect(result.reviews.reduce((sum, reviews) => sum + reviews.log.length, 0)).toBeGreaterThan(50);
  });
});

describe.each(['current.apkg', 'legacy.apkg', 'collection.colpkg'])('%s, its pictures and sounds', (name) => {
  it('keeps the files the cards use, checked, on the field where Anki shows them', async () => {
    const { result } = await read(name);
    const byName = new Map(result.decks.map((deck) => [deck.name, deck]));
    const files = new Map(result.media.files.map((file) => [file.name, file]));
    expect([...files.keys()].sort()).toEqual(['Hund bellt.mp3', 'Straße.png', 'cat.png', 'foto.jpg', 'gruß.spx', 'hola.mp3']);
    expect(files.get('cat.png')).toMatchObject({ kind: 'image', type: 'image/png' });
    expect(files.get('foto.jpg')).toMatchObject({ kind: 'image', type: 'image/jpeg' });
    expect(files.get('Hund bellt.mp3')).toMatchObject({ kind: 'sound', type: 'audio/mpeg' });
    for (const file of files.values()) {
      expect(file.hash).toBe(createHash('sha256').update(new Uint8Array(file.bytes)).digest('hex'));
    }
    const hash = (file: string) => files.get(file)?.hash;
    const spanish = byName.get('Spanish')?.cards ?? [];
    expect(spanish.find((card) => card.tags.includes('media'))?.media).toEqual([
      { hash: hash('cat.png'), name: 'cat.png', kind: 'image', field: 'front' },
      { hash: hash('hola.mp3'), name: 'hola.mp3', kind: 'sound', field: 'back' },
    ]);
    // The refused and missing pictures leave the card its text and the picture that was kept.
    expect(spanish.find((card) => card.front === 'la foto')?.media).toEqual([{ hash: hash('foto.jpg'), name: 'foto.jpg', kind: 'image', field: 'front' }]);
    const child = byName.get('Parent::Child')?.cards ?? [];
    // The example (Anki's third field) is shown on the back.
    expect(child.find((card) => card.front === 'Hund')?.media).toEqual([
      { hash: hash('Hund bellt.mp3'), name: 'Hund bellt.mp3', kind: 'sound', field: 'back' },
    ]);
    expect(child.find((card) => card.front === 'Strasse')?.media).toEqual([{ hash: hash('Straße.png'), name: 'Straße.png', kind: 'image', field: 'front' }]);
    expect(result.media.problems).toEqual([
      { name: 'huge.png', reason: 'is 20,000 × 20,000 pixels; pictures up to 10,000 pixels a side and 40 million pixels are kept' },
      { name: 'missing.png', reason: 'is not in the package' },
    ]);
    expect(skippedInWords(result)[0]).toBe(
      'Skipped 2 pictures and sounds (the cards keep their text): “huge.png” is 20,000 × 20,000 pixels; pictures up to 10,000 pixels a side and 40 million pixels are kept; “missing.png” is not in the package.',
    );
  });

  it('keeps the media budgets: files, bytes in all and per file', async () => {
    const bytes = new Uint8Array(readFileSync(fixtures + name));
    const at = async (budgets: Partial<Budgets>) => (await readPackage(bytes, openDatabase, makeId, new Date(), undefined, { ...BUDGETS, ...budgets })).media;
    const two = await at({ mediaFiles: 2 });
    expect(two.files).toHaveLength(2);
    expect(two.problems.filter((problem) => problem.reason === 'is past the 2 files one import keeps')).toHaveLength(5);
    const small = await at({ mediaFileBytes: 2000 });
    expect(small.files.map((file) => file.name).sort()).toEqual(['Straße.png', 'cat.png', 'foto.jpg', 'gruß.spx']);
    expect(small.problems.find((problem) => problem.name === 'hola.mp3')?.reason).toMatch(/^is 9\.\d KB; files up to 2\.0 KB are kept$/);
    const total = await at({ mediaBytes: 1500 });
    expect(total.files.reduce((sum, file) => sum + file.bytes.byteLength, 0)).toBeLessThanOrEqual(1500);
    expect(total.problems.some((problem) => problem.reason === 'is past the 0 MB of media one import keeps')).toBe(true);
  });
});

describe.each(['current.apkg', 'legacy.apkg', 'collection.colpkg'])('%s, as its decks are stored', (name) => {
  it('guesses each deck’s languages from what the package says, and switches off the fields Anki has not', async () => {
    const { result } = await read(name);
    const languages = Object.fromEntries(result.decks.map((deck, index) => [deck.name, [deck.sourceLang, deck.targetLang, result.languages[index]]]));
    // Spanish words on the front, English on the back: from the cards' text.
    expect(languages.Spanish).toEqual(['es', 'en', { source: { lang: 'es', from: 'text' }, target: { lang: 'en', from: 'text' } }]);
    // French on the front (its text); the English backs are single words that say nothing: the default.
    expect(languages.Parent).toEqual(['fr', 'en', { source: { lang: 'fr', from: 'text' }, target: null }]);
    // German nouns say nothing by themselves; the cards' tag "german" does.
    expect(languages['Parent::Child']).toEqual(['de', 'en', { source: { lang: 'de', from: 'name' }, target: null }]);
    // A cloze deck's back is an extra: both sides are the text's language.
    expect(languages.Cloze).toEqual(['en', 'en', { source: { lang: 'en', from: 'text' }, target: { lang: 'en', from: 'text' } }]);
    for (const deck of result.decks) expect(deck).toMatchObject({ pronunciationField: false, genderField: false, exampleField: false });
  });
});

describe('files that are not decks', () => {
  const fails = async (bytes: Uint8Array) => {
    try {
      await readPackage(bytes, openDatabase, makeId, new Date());
    } catch (error) {
      expect(error).toBeInstanceOf(PackageError);
      return (error as Error).message;
    }
    throw new Error('no error');
  };

  it('says a text file is not a zip', async () => {
    expect(await fails(new TextEncoder().encode('front\tback\n'))).toMatch(/not an Anki package/);
  });

  it('says a zip without a collection holds none', async () => {
    expect(await fails(zipSync({ 'notes.txt': new TextEncoder().encode('hi') }))).toMatch(/no Anki collection/);
  });

  it('says a package from a newer Anki is too new', async () => {
    expect(await fails(zipSync({ meta: new Uint8Array([0x08, 0x09]), 'collection.anki2': new Uint8Array(10) }))).toMatch(/newer Anki/);
  });

  it('says a collection that is not a database cannot be opened', async () => {
    expect(await fails(zipSync({ 'collection.anki21': new TextEncoder().encode('not sqlite') }))).toMatch(/not a database|no Anki collection/);
  });

  it('keeps the budgets', async () => {
    const bytes = new Uint8Array(readFileSync(fixtures + 'current.apkg'));
    const small = { ...BUDGETS, fileBytes: 1000, collectionBytes: 1e9, cards: 1e6 };
    await expect(readPackage(bytes, openDatabase, makeId, new Date(), undefined, small)).rejects.toThrow(/can be imported/);
    await expect(readPackage(bytes, openDatabase, makeId, new Date(), undefined, { ...small, fileBytes: 1e9, collectionBytes: 1000 })).rejects.toThrow(
      /unpacked/,
    );
    await expect(readPackage(bytes, openDatabase, makeId, new Date(), undefined, { ...small, fileBytes: 1e9, cards: 10 })).rejects.toThrow(/59 cards/);
  });
});

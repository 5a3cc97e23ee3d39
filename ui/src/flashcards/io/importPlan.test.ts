import { describe, expect, it } from 'vitest';
import { derivedGuid } from '../guid';
import { defaultMeta, emptyCard, normaliseForSave } from '../deck';
import { emptyReviews, recordMark } from '../srs/reviewLog';
import { writeBackup } from './backup';
import {
  DEFAULT_REQUEST,
  decksToSave,
  detectFormat,
  fileNameFor,
  importBlocker,
  nameFromFileName,
  planImport,
  readDelimited,
  reviewsToSave,
  suggestedDeckName,
  type ImportRequest,
} from './importPlan';
import { ankiDeckName } from './anki';

const counter = () => {
  let n = 0;
  return () => `id-${++n}`;
};
const request = (text: string, extra: Partial<ImportRequest> = {}): ImportRequest => ({ ...DEFAULT_REQUEST, text, ...extra });
const NOW = new Date('2025-05-05T10:00:00.000Z');

/** Any guid as newGuid makes them. */
const GUID = expect.stringMatching(/^\S{1,10}$/) as unknown as string;

describe('detectFormat', () => {
  it('tells JSON, Anki and delimited text apart', () => {
    expect(detectFormat('  {"type":"deck"}')).toBe('json');
    expect(detectFormat('[{}]')).toBe('json');
    expect(detectFormat('#separator:tab\na\tb')).toBe('anki');
    expect(detectFormat('a;b')).toBe('delimited');
  });
});

describe('readDelimited', () => {
  it('reads CSV with semicolons, quotes and a BOM, as Excel writes in nl, fr and hu', () => {
    const result = readDelimited('\ufeffkat;chat\r\n"hond; trouw";"le chien ""fidèle"""\r\n');
    expect(result.delimiter).toBe(';');
    expect(result.cards.map((c) => [c.front, c.back])).toEqual([
      ['kat', 'chat'],
      ['hond; trouw', 'le chien "fidèle"'],
    ]);
  });

  it('uses a header row of column names', () => {
    const result = readDelimited('Front,Back,Gender,Example\ncat,chat,m,"Le chat, il dort."');
    expect(result.cards).toEqual([{ line: 2, front: 'cat', back: 'chat', pronunciation: '', gender: 'm', example: 'Le chat, il dort.', tags: [] }]);
  });

  it('reads a Tags column', () => {
    const result = readDelimited('Front,Back,Tags\ncat,chat,animals nouns');
    expect(result.cards[0]?.tags).toEqual(['animals', 'nouns']);
  });

  it('reads TSV and a chosen delimiter', () => {
    expect(readDelimited('a\tb,c').cards[0]).toMatchObject({ front: 'a', back: 'b,c' });
    expect(readDelimited('a\tb,c', ',').cards[0]).toMatchObject({ front: 'a\tb', back: 'c' });
  });
});

describe('planImport', () => {
  it('is empty for blank text', () => {
    expect(planImport(request('  \n'), counter())).toEqual({ status: 'empty' });
  });

  it('plans cards from CSV with the rows left out', () => {
    const plan = planImport(request('cat,chat\nlonely\ndog,chien'), counter());
    expect(plan).toMatchObject({ status: 'cards', format: 'delimited', delimiter: ',' });
    if (plan.status !== 'cards') throw new Error('expected cards');
    expect(plan.cards).toHaveLength(2);
    expect(plan.problems).toEqual([{ line: 2, message: 'only one field was found, so there is no back; the row is skipped' }]);
  });

  it('reports an error with the line number and never throws for bad input', () => {
    expect(planImport(request('a,b\nc,d\n"e,f\n'), counter())).toEqual({
      status: 'error',
      format: 'delimited',
      error: 'Line 3: a quoted field is not closed (a " is missing)',
      problems: [],
    });
    expect(planImport(request('{ nope'), counter())).toMatchObject({ status: 'error', format: 'json' });
  });

  it('is an error when no row makes a card', () => {
    expect(planImport(request('one\ntwo'), counter())).toMatchObject({ status: 'error', error: 'No cards found: each card needs a front and a back.' });
  });

  it('reads Quizlet only when chosen, with its separators', () => {
    const plan = planImport(
      request('cat,chat, le chat;dog,chien', { format: 'quizlet', quizlet: { term: { kind: 'comma' }, card: { kind: 'semicolon' } } }),
      counter(),
    );
    expect(plan.status === 'cards' && plan.cards.map((c) => [c.front, c.back])).toEqual([
      ['cat', 'chat, le chat'],
      ['dog', 'chien'],
    ]);
  });

  it('plans the decks of a backup', () => {
    const deck = normaliseForSave(
      'd1',
      { ...defaultMeta(), name: 'Saved' },
      [{ id: 'c', front: 'a', back: 'b', pronunciation: '', gender: '', example: '', tags: [], suspended: false, media: [], guid: '' }],
      NOW,
    );
    const plan = planImport(request(writeBackup([deck], NOW)), counter());
    expect(plan).toEqual({ status: 'decks', format: 'json', decks: [deck], reviews: [null], problems: [] });
  });
});

describe('decksToSave', () => {
  it('makes one new deck of imported cards with the given metadata', () => {
    const plan = planImport(request('cat\tchat\t/ʃa/\tm\tLe chat.\ndog\tchien'), counter());
    const meta = { ...defaultMeta(), name: ' Animals ', sourceLang: 'en' as const, targetLang: 'fr' as const };
    const [deck, ...rest] = decksToSave(plan, meta, [], counter(), NOW);
    expect(rest).toEqual([]);
    expect(deck).toEqual({
      ...meta,
      // Some card has a pronunciation, a gender and an example: their fields stay on.
      name: 'Animals',
      id: 'id-3',
      createdAt: NOW.toISOString(),
      type: 'deck',
      version: 1,
      cards: [
        { id: 'id-1', front: 'cat', back: 'chat', pronunciation: '/ʃa/', gender: 'm', example: 'Le chat.', tags: [], suspended: false, media: [], guid: GUID },
        { id: 'id-2', front: 'dog', back: 'chien', pronunciation: '', gender: '', example: '', tags: [], suspended: false, media: [], guid: GUID },
      ],
    });
    // Each new card its own guid, made as it is imported.
    expect(new Set(deck?.cards.map((card) => card.guid)).size).toBe(2);
  });

  it('switches off the optional fields no imported card has', () => {
    const plan = planImport(request('cat\tchat\t/ʃa/\ndog\tchien'), counter());
    const [deck] = decksToSave(plan, { ...defaultMeta(), name: 'Animals' }, [], counter(), NOW);
    expect(deck).toMatchObject({ pronunciationField: true, genderField: false, exampleField: false });
  });

  it('gives backup decks new ids only where taken', () => {
    const deck = normaliseForSave(
      'taken',
      { ...defaultMeta(), name: 'X' },
      [{ id: 'c', front: 'a', back: 'b', pronunciation: '', gender: '', example: '', tags: [], suspended: false, media: [], guid: '' }],
      NOW,
    );
    const plan = planImport(request(JSON.stringify([deck, { ...deck, id: 'free' }])), counter());
    const saved = decksToSave(plan, defaultMeta(), ['taken'], () => 'fresh', NOW);
    expect(saved.map((d) => d.id)).toEqual(['fresh', 'free']);
    // A backup's card without a guid gets the one its deck's export derives; a card with one keeps it.
    expect(saved[0]).toEqual({ ...deck, id: 'fresh', cards: [{ ...deck.cards[0], guid: derivedGuid('taken', 'c') }] });
    expect(saved[1]?.cards[0]?.guid).toBe(derivedGuid('free', 'c'));
    const kept = decksToSave(
      planImport(request(JSON.stringify([{ ...deck, cards: [{ ...deck.cards[0], guid: 'kept' }] }])), counter()),
      defaultMeta(),
      [],
      counter(),
      NOW,
    );
    expect(kept[0]?.cards[0]?.guid).toBe('kept');
  });

  it('saves nothing for an empty or failed plan', () => {
    expect(decksToSave({ status: 'empty' }, defaultMeta(), [], counter(), NOW)).toEqual([]);
  });
});

describe('file names', () => {
  it('derives a deck name from a file and a file from a deck name', () => {
    expect(nameFromFileName('french_verbs.csv')).toBe('french verbs');
    expect(nameFromFileName('notes.anki.txt')).toBe('notes.anki');
    expect(fileNameFor('Français: Verbes ①', 'txt')).toBe('francais-verbes-1.txt');
    expect(fileNameFor('???', 'json')).toBe('deck.json');
  });
});

describe('reviewsToSave', () => {
  it('files each imported log under the id its deck is saved with', () => {
    const log = recordMark(emptyReviews(), 'c1', 'good', Date.UTC(2026, 0, 1));
    const deck = normaliseForSave('taken', { ...defaultMeta(), name: 'N' }, [{ ...emptyCard('c1'), front: 'a', back: 'b' }], NOW);
    const plan = { status: 'decks' as const, format: 'json' as const, decks: [deck], reviews: [log], problems: [] };
    const saved = decksToSave(plan, defaultMeta(), ['taken'], () => 'fresh', NOW);
    expect(reviewsToSave(plan, saved)).toEqual({ fresh: log });
    expect(reviewsToSave({ status: 'empty' }, [])).toEqual({});
  });
});

describe('the proposed deck name and why Import waits', () => {
  it('reads an Anki export’s #deck: header, nested decks kept readable', () => {
    expect(ankiDeckName('#separator:tab\n#html:false\n#deck:French::Verbs\ncat\tchat')).toBe('French › Verbs');
    expect(ankiDeckName('\ufeff#deck: Basics \ncat\tchat')).toBe('Basics');
    expect(ankiDeckName('#deck column:3\ncat\tchat\tDeck')).toBeNull();
    expect(ankiDeckName('cat\tchat\n#deck:Late')).toBeNull();
    expect(ankiDeckName('#deck:\ncat\tchat')).toBeNull();
  });

  it('proposes the #deck: name first, then the file name', () => {
    expect(suggestedDeckName('#deck:Anki name\ncat\tchat', 'file_name.txt')).toBe('Anki name');
    expect(suggestedDeckName('cat\tchat', 'my_words.txt')).toBe('my words');
    expect(suggestedDeckName('cat\tchat', null)).toBe('');
  });

  it('says why Import is disabled', () => {
    const plan = planImport({ ...DEFAULT_REQUEST, text: 'cat\tchat' }, () => 'id');
    expect(
      importBlocker(
        planImport(DEFAULT_REQUEST, () => 'id'),
        '',
      ),
    ).toBe('Paste text or choose a file to import.');
    expect(importBlocker(plan, ' ')).toBe('Give the deck a name to import it.');
    expect(importBlocker(plan, 'Words')).toBeNull();
    expect(
      importBlocker(
        planImport({ ...DEFAULT_REQUEST, text: 'only fronts' }, () => 'id'),
        'x',
      ),
    ).toMatch(/problem above/);
  });
});

// The pure parts of "Export as Anki package": each card state's Anki fields, the revlog rows, the
// media map and names, the fields' HTML and the note type each card gets.
import { describe, expect, it } from 'vitest';
import type { Card, Deck } from '../../deck';
import { addDays, startOfDay } from '../../srs/days';
import { emptyReviews, recordMark } from '../../srs/reviewLog';
import { grade, type ItemState } from '../../srs/schedule';
import { cardSchedule, collectionRows, DEFAULT_PARAMS, mediaEntries, mediaTag, revlogRows, textToHtml, type ScheduleContext } from './exportRows';

const DAY = 86_400_000;
const NOW = new Date(2026, 10, 20, 15, 0).getTime();
const context: ScheduleContext = { crtMs: addDays(NOW, -30), retention: 0.9, decay: 0.1542 };
const hash = (c: string) => c.repeat(64);

const card = (id: string, front: string, back: string, extra: Partial<Card> = {}): Card => ({
  id,
  front,
  back,
  pronunciation: '',
  gender: '',
  example: '',
  tags: [],
  suspended: false,
  media: [],
  guid: `g-${id}`,
  ...extra,
});

const deckOf = (cards: Card[], extra: Partial<Deck> = {}): Deck => ({
  id: 'd',
  name: 'Deck',
  author: '',
  description: '',
  sourceLang: 'fr',
  targetLang: 'en',
  bidirectional: false,
  pronunciationField: true,
  genderField: true,
  exampleField: true,
  autoplay: false,
  createdAt: '',
  type: 'deck',
  version: 1,
  cards,
  ...extra,
});

describe('cardSchedule', () => {
  it('writes a never-reviewed card as new at its position, suspended in queue -1', () => {
    expect(cardSchedule(null, false, 7, context)).toEqual({ type: 0, queue: 0, due: 7, ivl: 0, factor: 0, reps: 0, lapses: 0, left: 0, data: '' });
    expect(cardSchedule(null, true, 7, context).queue).toBe(-1);
  });

  it('writes a review card due on its collection day, with its interval and FSRS memory state', () => {
    const last = NOW - 3 * DAY;
    const state: ItemState = [NOW + 4 * DAY, 7.123456, 5.4321, 7, 0, 5, 1, 2, last];
    const row = cardSchedule(state, false, 1, context);
    expect(row).toMatchObject({ type: 2, queue: 2, due: 34, ivl: 7, factor: 2500, reps: 5, lapses: 1, left: 0 });
    expect(JSON.parse(row.data)).toEqual({ s: 7.1235, d: 5.432, dr: 0.9, decay: 0.1542, lrt: Math.floor(last / 1000) });
    expect(cardSchedule(state, true, 1, context)).toMatchObject({ type: 2, queue: -1, due: 34 });
  });

  it('keeps a learning step due today in the intraday queue (seconds), one due on a later day in the day queue', () => {
    const learning = grade(null, 'again', NOW);
    const row = cardSchedule(learning, false, 1, context);
    expect(row).toMatchObject({ type: 1, queue: 1, due: Math.floor(learning[0] / 1000), ivl: 0, reps: 1, left: 2 });
    const late: ItemState = [addDays(NOW, 2) + 3_600_000, 0.5, 6, 0, 1, 1, 0, 1, NOW];
    expect(cardSchedule(late, false, 1, context)).toMatchObject({ type: 1, queue: 3, due: 32, left: 1 });
  });

  it('writes a relearning card as type 3 with its lapses', () => {
    let state = grade(null, 'good', NOW - 20 * DAY);
    state = grade(state, 'good', NOW - 19 * DAY);
    state = grade(state, 'again', NOW - 60_000);
    expect(state[7]).toBe(3);
    expect(cardSchedule(state, false, 1, context)).toMatchObject({ type: 3, queue: 1, due: Math.floor(state[0] / 1000), factor: 2500, lapses: 1, left: 1 });
  });

  it('places the collection’s day numbers at local midnight', () => {
    const state: ItemState = [startOfDay(NOW) + 60_000, 3, 5, 3, 0, 2, 0, 2, NOW - 3 * DAY];
    expect(cardSchedule(state, false, 1, context).due).toBe(30);
  });
});

describe('revlogRows', () => {
  it('writes each mark of an exported card: ease, intervals, FSRS factor and type, ids unique', () => {
    let reviews = emptyReviews();
    reviews = recordMark(reviews, 'a', 'again', NOW - 2 * DAY);
    reviews = recordMark(reviews, 'a', 'good', NOW - 2 * DAY + 60_000);
    reviews = recordMark(reviews, 'a', 'good', NOW - DAY);
    reviews = recordMark(reviews, 'gone', 'good', NOW - DAY + 1);
    const rows = revlogRows(reviews.log, reviews.seeds, new Map([['a', 42]]));
    expect(rows.map((row) => [row.id, row.cid, row.ease, row.type])).toEqual([
      [NOW - 2 * DAY, 42, 1, 0],
      [NOW - 2 * DAY + 60_000, 42, 3, 0],
      [NOW - DAY, 42, 3, 0],
    ]);
    // Again: a 1-minute step (-60 s); then 10 minutes; then graduated to days.
    expect(rows.map((row) => [row.ivl, row.lastIvl])).toEqual([
      [-60, 0],
      [-600, -60],
      [expect.any(Number), -600],
    ]);
    expect(rows[2]?.ivl).toBeGreaterThan(0);
    // Difficulty 1..10 as 100..1100 (Anki's own first Again is about 701).
    expect(rows[0]?.factor).toBeGreaterThan(600);
    expect(rows[0]?.factor).toBeLessThan(800);
  });

  it('starts an imported card’s marks after its seed from the seed’s state', () => {
    const seed: ItemState = [NOW - DAY, 20, 4, 20, 0, 6, 0, 2, NOW - 21 * DAY];
    const rows = revlogRows(
      [
        ['k', NOW - 21 * DAY, 'good'],
        ['k', NOW, 'good'],
      ],
      { k: { through: NOW - 21 * DAY, state: seed } },
      new Map([['k', 1]]),
    );
    expect(rows[0]?.ivl).toBe(20);
    expect(rows[1]).toMatchObject({ lastIvl: 20, type: 1 });
  });
});

describe('media and fields', () => {
  it('lists each file once, renaming a name two files share', () => {
    const cards = [
      card('1', 'a', 'b', { media: [{ hash: hash('a'), name: 'x.png', kind: 'image', field: 'front' }] }),
      card('2', 'a', 'b', {
        media: [
          { hash: hash('a'), name: 'x.png', kind: 'image', field: 'back' },
          { hash: hash('b'), name: 'x.png', kind: 'image', field: 'front' },
          { hash: hash('c'), name: 'Grüße aus Köln.mp3', kind: 'sound', field: 'back' },
        ],
      }),
    ];
    const { entries } = mediaEntries(cards);
    expect(entries.map((entry) => entry.name)).toEqual(['x.png', 'x (2).png', 'Grüße aus Köln.mp3']);
  });

  it('writes text as HTML and media as Anki does', () => {
    expect(textToHtml('a < b & c\nd')).toBe('a &lt; b &amp; c<br>d');
    expect(mediaTag('image', 'a "b".png')).toBe('<img src="a &quot;b&quot;.png">');
    expect(mediaTag('sound', 'hund 1.mp3')).toBe('[sound:hund 1.mp3]');
  });
});

describe('collectionRows', () => {
  it('gives a one-way deck Basic notes, a two-way deck reversed ones with both cards, a cloze card a Cloze note per deletion', () => {
    const cards = [card('1', 'chat', 'cat', { tags: ['a', 'b'] }), card('2', 'le {{c1::chat}} {{c2::noir}}', ''), card('3', '', '')];
    const oneWay = collectionRows({ deck: deckOf(cards), reviews: emptyReviews(), now: NOW });
    const models = JSON.parse(oneWay.models) as Record<string, { name: string }>;
    const typeOf = (mid: number) => models[String(mid)]?.name;
    expect(oneWay.notes.map((note) => [note.guid, typeOf(note.mid), note.tags, note.fields])).toEqual([
      ['g-1', 'Basic', ' a b ', ['chat', 'cat']],
      ['g-2', 'Cloze', '', ['le {{c1::chat}} {{c2::noir}}', '']],
    ]);
    expect(oneWay.cards.map((row) => row.ord)).toEqual([0, 0, 1]);
    expect(oneWay.skipped).toBe(1);
    const twoWay = collectionRows({ deck: deckOf(cards, { bidirectional: true }), reviews: emptyReviews(), now: NOW });
    const twoModels = JSON.parse(twoWay.models) as Record<string, { name: string }>;
    expect(twoWay.notes.map((note) => twoModels[String(note.mid)]?.name)).toEqual(['Basic (and reversed card)', 'Cloze']);
    expect(twoWay.cards.map((row) => row.ord)).toEqual([0, 1, 0, 1]);
  });

  it('uses Hearth’s note type with the optional fields when the deck uses them, and writes the deck’s options', () => {
    const cards = [card('1', 'chat', 'cat', { pronunciation: '/ʃa/', media: [{ hash: hash('a'), name: 'chat.mp3', kind: 'sound', field: 'pronunciation' }] })];
    const reviews = { ...emptyReviews(12), retention: 0.85, params: DEFAULT_PARAMS.map((value) => value * 1.01) };
    const rows = collectionRows({ deck: deckOf(cards), reviews, now: NOW });
    const [model] = Object.values(JSON.parse(rows.models) as Record<string, { name: string; flds: { name: string }[] }>);
    expect(model?.flds.map((field) => field.name)).toEqual(['Front', 'Back', 'Pronunciation', 'Gender', 'Example']);
    expect(rows.notes[0]?.fields).toEqual(['chat', 'cat', '/ʃa/ [sound:chat.mp3]', '', '']);
    const options = Object.values(
      JSON.parse(rows.dconf) as Record<string, { name: string; desiredRetention: number; fsrsParams6: number[]; new: { perDay: number } }>,
    );
    const own = options.find((option) => option.name === 'Hearth: Deck');
    expect(own).toMatchObject({ desiredRetention: 0.85, new: { perDay: 12 } });
    expect(own?.fsrsParams6).toEqual(reviews.params);
    // Without its own settings, the defaults: 0.9 and FSRS-6's default parameters.
    const plain = Object.values(
      JSON.parse(collectionRows({ deck: deckOf(cards), reviews: emptyReviews(), now: NOW }).dconf) as Record<
        string,
        { desiredRetention: number; fsrsParams6: number[] }
      >,
    );
    expect(plain[1]).toMatchObject({ desiredRetention: 0.9, fsrsParams6: [...DEFAULT_PARAMS] });
    expect(DEFAULT_PARAMS).toHaveLength(21);
  });

  it('keeps a picture or sound in an optional field whose column is off, with that field’s text', () => {
    const cards = [card('1', 'chat', 'cat', { example: 'hidden', media: [{ hash: hash('a'), name: 'miaou.mp3', kind: 'sound', field: 'example' }] })];
    const rows = collectionRows({
      deck: deckOf(cards, { pronunciationField: false, genderField: false, exampleField: false }),
      reviews: emptyReviews(),
      now: NOW,
    });
    expect(rows.notes[0]?.fields).toEqual(['chat', 'cat', '', '', 'hidden [sound:miaou.mp3]']);
    const plain = collectionRows({
      deck: deckOf([card('1', 'chat', 'cat', { example: 'hidden' })], { exampleField: false }),
      reviews: emptyReviews(),
      now: NOW,
    });
    expect(plain.notes[0]?.fields).toEqual(['chat', 'cat']);
  });

  it('derives a guid for a card stored without one, the same in two exports', () => {
    const cards = [card('1', 'chat', 'cat', { guid: '' })];
    const first = collectionRows({ deck: deckOf(cards), reviews: emptyReviews(), now: NOW });
    const second = collectionRows({ deck: deckOf(cards), reviews: emptyReviews(), now: NOW + DAY });
    expect(first.notes[0]?.guid).toBe(second.notes[0]?.guid);
    expect(first.notes[0]?.guid).not.toBe('');
  });
});

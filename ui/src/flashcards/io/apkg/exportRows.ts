// One Hearth deck as the rows of an Anki collection (legacy schema 11, what "Export as Anki
// package" writes): a note per card of the right type (noteTypes.ts: Basic; Basic (and reversed
// card) for a two-way deck; Cloze for a card with deletions; Hearth's own types when the deck
// uses its optional fields), with the card's guid (guid.ts), tags and fields as HTML (text
// escaped, lines as <br>, pictures as <img src="name">, sounds as [sound:name]); an Anki card per
// practice item with its schedule from the review log (FSRS memory state in `data`, due date,
// interval, reps, lapses; new, learning, review, relearning, suspended); every mark as a revlog
// row; the deck's options (new cards a day, desired retention, FSRS parameters). Pure: the deck,
// its review record, the clock and the time zone come in; writePackage.ts writes the rows.
import { clozeKey, clozeNumbers } from '../../cloze';
import { isCompleteCard, type Card, type Deck } from '../../deck';
import { guidOf } from '../../guid';
import type { MediaField } from '../../media/ref';
import { addDays, startOfDay } from '../../srs/days';
import type { ReviewEntry, ReviewRecord } from '../../srs/reviewLog';
import {
  DEFAULT_PARAMS,
  DEFAULT_RETENTION,
  grade,
  STATE_LEARNING,
  STATE_RELEARNING,
  STATE_REVIEW,
  type ItemState,
  type ScheduleSettings,
} from '../../srs/schedule';
import { collectionConfigJson, deckConfigJson, deckJson, NOTE_FIELDS, noteTypeJson, type NoteKind } from './noteTypes';

const DAY_MS = 86_400_000;
export { DEFAULT_PARAMS, DEFAULT_RETENTION };

/** The deck's review record, with its own FSRS settings when it has them (the optimiser's). */
export type ExportReviews = ReviewRecord;

export interface NoteRow {
  id: number;
  guid: string;
  mid: number;
  mod: number;
  tags: string;
  /** The fields, joined with Anki's separator (0x1f) when written. */
  fields: string[];
  /** The first field as text: Anki's sort field, and what its checksum is of. */
  sortField: string;
}

export interface CardRow {
  id: number;
  nid: number;
  did: number;
  ord: number;
  mod: number;
  type: number;
  queue: number;
  due: number;
  ivl: number;
  factor: number;
  reps: number;
  lapses: number;
  left: number;
  data: string;
}

export interface RevlogRow {
  id: number;
  cid: number;
  ease: number;
  ivl: number;
  lastIvl: number;
  factor: number;
  type: number;
}

/** One media file of the package: numbered entry `index` of the zip, `name` in the `media` map. */
export interface MediaEntry {
  hash: string;
  name: string;
}

export interface CollectionRows {
  /** Epoch seconds of the collection's first day (local midnight). */
  crt: number;
  now: number;
  conf: string;
  models: string;
  decks: string;
  dconf: string;
  notes: NoteRow[];
  cards: CardRow[];
  revlog: RevlogRow[];
  media: MediaEntry[];
  /** Cards left out: no text on a side (the editor's empty rows). */
  skipped: number;
}

const FIELD_ORDER: readonly MediaField[] = ['front', 'back', 'pronunciation', 'gender', 'example'];

/** Hearth text as an Anki field: HTML escaped, each line break a <br>. */
export function textToHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r?\n/g, '<br>');
}

/** A field's media as Anki writes it: pictures as <img>, sounds as [sound:]. */
export function mediaTag(kind: 'image' | 'sound', name: string): string {
  return kind === 'image' ? `<img src="${name.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}">` : `[sound:${name}]`;
}

/**
 * The package's files, each once by hash, under the names the cards give them; a name two
 * different files share gets " (2)", " (3)"… before its extension. Answers the entries in zip
 * order and each hash's name.
 */
export function mediaEntries(cards: readonly Pick<Card, 'media'>[]): { entries: MediaEntry[]; nameOf: Map<string, string> } {
  const nameOf = new Map<string, string>();
  const taken = new Set<string>();
  const entries: MediaEntry[] = [];
  for (const card of cards) {
    for (const ref of card.media) {
      if (nameOf.has(ref.hash)) continue;
      let name = ref.name;
      const dot = name.lastIndexOf('.');
      const [stem, extension] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
      for (let n = 2; taken.has(name); n += 1) name = `${stem} (${n})${extension}`;
      taken.add(name);
      nameOf.set(ref.hash, name);
      entries.push({ hash: ref.hash, name });
    }
  }
  return { entries, nameOf };
}

/** The card's field as HTML: its text, then its pictures and sounds. */
function fieldHtml(card: Card, field: MediaField, nameOf: ReadonlyMap<string, string>): string {
  const media = card.media.filter((ref) => ref.field === field).map((ref) => mediaTag(ref.kind, nameOf.get(ref.hash) ?? ref.name));
  return [textToHtml(card[field]), ...media].filter((part) => part !== '').join(' ');
}

/** Days of the collection, counted from local midnight of `crt` (DST-safe). */
const dayOf = (crtMs: number, at: number) => Math.round((startOfDay(at) - crtMs) / DAY_MS);

/** A learning step's length, or a review interval, as Anki's revlog writes it: days, or negative seconds. */
function revlogInterval(state: ItemState | null): number {
  if (!state) return 0;
  const [due, , , scheduledDays, , , , kind, lastReview] = state;
  if (kind === STATE_REVIEW) return Math.max(1, scheduledDays > 0 ? scheduledDays : Math.round((due - lastReview) / DAY_MS));
  return -Math.max(1, Math.round((due - lastReview) / 1000));
}

/** Anki's revlog `factor` under FSRS: difficulty 1 to 10 as 100 to 1100. */
const revlogFactor = (state: ItemState) => Math.round(((state[2] - 1) / 9) * 1000) + 100;

/** Anki's revlog `type` from the state a mark was given in: 0 learning (and new), 1 review, 2 relearning. */
const revlogType = (before: ItemState | null) => (before?.[7] === STATE_REVIEW ? 1 : before?.[7] === STATE_RELEARNING ? 2 : 0);

const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;

export interface ScheduleContext {
  crtMs: number;
  retention: number;
  decay: number;
}

/**
 * The Anki card fields of an item's state: null (never reviewed) is new at `position`; learning
 * and relearning cards due the day of their last review wait in the intraday queue (due in
 * seconds), later ones in the day-learning queue (due on a day); review cards are due on the
 * collection day of their due time. The memory state goes in `data` as Anki keeps it.
 */
export function cardSchedule(
  state: ItemState | null,
  suspended: boolean,
  position: number,
  context: ScheduleContext,
): Pick<CardRow, 'type' | 'queue' | 'due' | 'ivl' | 'factor' | 'reps' | 'lapses' | 'left' | 'data'> {
  const hold = (queue: number) => (suspended ? -1 : queue);
  if (!state || (state[7] !== STATE_LEARNING && state[7] !== STATE_REVIEW && state[7] !== STATE_RELEARNING)) {
    return { type: 0, queue: hold(0), due: position, ivl: 0, factor: 0, reps: 0, lapses: 0, left: 0, data: '' };
  }
  const [due, stability, difficulty, scheduledDays, learningSteps, reps, lapses, kind, lastReview] = state;
  const data = JSON.stringify({
    s: round(stability, 4),
    d: round(difficulty, 3),
    dr: context.retention,
    decay: context.decay,
    ...(lastReview > 0 ? { lrt: Math.floor(lastReview / 1000) } : {}),
  });
  if (kind === STATE_REVIEW) {
    const ivl = Math.max(1, scheduledDays > 0 ? scheduledDays : Math.round((due - lastReview) / DAY_MS));
    return { type: 2, queue: hold(2), due: dayOf(context.crtMs, due), ivl, factor: 2500, reps, lapses, left: 0, data };
  }
  // Steps left: Hearth learns in 1 and 10 minutes and relearns in 10 (ts-fsrs's defaults).
  const left = Math.max(1, (kind === STATE_LEARNING ? 2 : 1) - learningSteps);
  const intraday = lastReview === 0 || dayOf(context.crtMs, due) <= dayOf(context.crtMs, lastReview);
  return {
    type: kind,
    queue: hold(intraday ? 1 : 3),
    due: intraday ? Math.floor(due / 1000) : dayOf(context.crtMs, due),
    ivl: kind === STATE_RELEARNING ? Math.max(1, Math.round(stability)) : 0,
    factor: kind === STATE_RELEARNING ? 2500 : 0,
    reps,
    lapses,
    left,
    data,
  };
}

/**
 * Every mark of the log as a revlog row (ids are the marks' times, kept unique): Again is ease 1,
 * Knew it ease 3; the interval, last interval, factor and type from the states the marks lead to
 * (replayed from each item's seed with the deck's own settings, as the log's derivation does; a
 * mark a seed holds is replayed from the marks before it, as only its seed's end state is known).
 */
export function revlogRows(
  log: readonly ReviewEntry[],
  seeds: ReviewRecord['seeds'],
  cardIds: ReadonlyMap<string, number>,
  settings?: ScheduleSettings,
): RevlogRow[] {
  const states = new Map<string, ItemState | null>();
  // Items whose seed's state is where their replay stands (a seed holding no marks: from the start).
  const seeded = new Set<string>();
  for (const [key, seed] of Object.entries(seeds)) {
    if (seed.through !== 0) continue;
    states.set(key, seed.state);
    seeded.add(key);
  }
  const rows: RevlogRow[] = [];
  let lastId = -Infinity;
  for (const [key, at, mark] of log) {
    const cid = cardIds.get(key);
    const seed = seeds[key];
    if (seed && !seeded.has(key) && at > seed.through) {
      // The first mark after its seed (the seed's own last mark dropped from the log).
      states.set(key, seed.state);
      seeded.add(key);
    }
    const before = states.get(key) ?? null;
    const held = seed !== undefined && at === seed.through;
    const after = held ? seed.state : grade(before, mark, at, settings);
    if (held) seeded.add(key);
    states.set(key, after);
    if (cid === undefined) continue;
    const id = Math.max(at, lastId + 1);
    lastId = id;
    rows.push({
      id,
      cid,
      ease: mark === 'again' ? 1 : 3,
      ivl: revlogInterval(after),
      lastIvl: revlogInterval(before),
      factor: revlogFactor(after),
      type: revlogType(before),
    });
  }
  return rows;
}

/** A stable positive id from a text, for the deck and its options (re-exports keep them). */
function stableId(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  // Above Anki's own millisecond ids of today, below 2^53.
  return 1_900_000_000_000 + (hash % 1_000_000_000);
}

/** The note type a card is exported as. */
function kindOf(card: Card, bidirectional: boolean, extras: boolean): NoteKind {
  if (clozeNumbers(card.front).length > 0) return 'cloze';
  if (extras) return bidirectional ? 'hearthReversed' : 'hearth';
  return bidirectional ? 'reversed' : 'basic';
}

function noteFields(card: Card, kind: NoteKind, nameOf: ReadonlyMap<string, string>, extras: readonly MediaField[]): string[] {
  const html = (field: MediaField) => fieldHtml(card, field, nameOf);
  if (kind === 'cloze') {
    // A cloze note has two fields: the optional texts go under Back Extra, a line each.
    const back = [html('back'), ...extras.map(html)].filter((part) => part !== '').join('<br>');
    return [html('front'), back];
  }
  return NOTE_FIELDS[kind].map((_, index) => html(FIELD_ORDER[index] as MediaField));
}

/** The Anki cards of a Hearth card: item keys and template ordinals. */
function cardItems(card: Card, kind: NoteKind): { key: string; ord: number }[] {
  if (kind === 'cloze') return clozeNumbers(card.front).map((number) => ({ key: clozeKey(card.id, number), ord: number - 1 }));
  if (kind === 'reversed' || kind === 'hearthReversed')
    return [
      { key: card.id, ord: 0 },
      { key: `${card.id}:reverse`, ord: 1 },
    ];
  return [{ key: card.id, ord: 0 }];
}

export interface ExportRequest {
  deck: Deck;
  reviews: ExportReviews;
  /** Epoch ms. */
  now: number;
}

export function collectionRows({ deck, reviews, now }: ExportRequest): CollectionRows {
  const cards = deck.cards.filter(isCompleteCard);
  // An optional field goes along when its column is on and a card has text in it, or a card has
  // a picture or sound in it (never dropped with a column that is off).
  const extras = (['pronunciation', 'gender', 'example'] as const).filter((field) =>
    cards.some((card) => (deck[`${field}Field`] && card[field].trim() !== '') || card.media.some((ref) => ref.field === field)),
  );
  const { entries, nameOf } = mediaEntries(cards);
  // The collection starts on the day of its first mark, seed or due date (or today).
  let first = now;
  for (const [, at] of reviews.log) first = Math.min(first, at);
  for (const state of Object.values(reviews.items)) first = Math.min(first, state[0], state[8] > 0 ? state[8] : now);
  const crtMs = addDays(first, -1);
  const params = reviews.params && reviews.params.length === DEFAULT_PARAMS.length ? reviews.params : DEFAULT_PARAMS;
  const retention = reviews.retention ?? DEFAULT_RETENTION;
  const context: ScheduleContext = { crtMs, retention, decay: round(params[20] ?? 0.1542, 4) };
  const mod = Math.floor(now / 1000);
  const deckId = stableId(`deck:${deck.id}`);
  const configId = stableId(`options:${deck.id}`);
  const kinds = new Map<NoteKind, number>();
  const noteTypeId = (kind: NoteKind) => {
    let id = kinds.get(kind);
    if (id === undefined) {
      id = stableId(`notetype:${kind}:${deck.id}`);
      kinds.set(kind, id);
    }
    return id;
  };

  const notes: NoteRow[] = [];
  const cardRows: CardRow[] = [];
  const cardIds = new Map<string, number>();
  cards.forEach((card, index) => {
    const kind = kindOf(card, deck.bidirectional, extras.length > 0);
    const nid = now + index;
    notes.push({
      id: nid,
      guid: guidOf(deck.id, card),
      mid: noteTypeId(kind),
      mod,
      tags: card.tags.length > 0 ? ` ${card.tags.join(' ')} ` : '',
      fields: noteFields(card, kind, nameOf, extras),
      sortField: card.front,
    });
    for (const { key, ord } of cardItems(card, kind)) {
      const id = now + cardRows.length;
      cardIds.set(key, id);
      const schedule = cardSchedule(reviews.items[key] ?? null, card.suspended, index + 1, context);
      cardRows.push({ id, nid, did: deckId, ord, mod, ...schedule });
    }
  });

  const models: Record<string, unknown> = {};
  for (const [kind, id] of kinds) models[String(id)] = noteTypeJson(kind, id, deckId, mod);
  const defaultDeck = deckJson(1, 'Default', '', 1, 0);
  const decks = { '1': defaultDeck, [String(deckId)]: deckJson(deckId, deck.name.trim() || 'Hearth deck', deck.description, configId, mod) };
  const options = { newPerDay: reviews.newPerDay, retention, params };
  const dconf = {
    '1': deckConfigJson(1, { ...options, name: 'Default', newPerDay: 20 }, 0),
    [String(configId)]: deckConfigJson(configId, { ...options, name: `Hearth: ${deck.name.trim() || 'deck'}` }, mod),
  };
  const firstType = kinds.values().next();
  const conf = collectionConfigJson(new Date(crtMs).getTimezoneOffset(), firstType.done ? 0 : firstType.value, deckId);
  conf.localOffset = new Date(now).getTimezoneOffset();
  conf.nextPos = cards.length + 1;
  return {
    crt: Math.floor(crtMs / 1000),
    now,
    conf: JSON.stringify(conf),
    models: JSON.stringify(models),
    decks: JSON.stringify(decks),
    dconf: JSON.stringify(dconf),
    notes,
    cards: cardRows,
    revlog: revlogRows(reviews.log, reviews.seeds, cardIds, reviews),
    media: entries,
    skipped: deck.cards.length - cards.length,
  };
}

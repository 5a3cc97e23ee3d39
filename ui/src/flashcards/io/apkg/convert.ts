// An Anki collection (collection.ts) turned into Hearth decks and review logs: one deck per Anki
// deck holding cards, named as in Anki; note types mapped (Basic; Basic and reversed as a
// bidirectional deck; type-in-the-answer as Basic; Cloze keeping its {{cN::...}} syntax; any
// other type by its first two fields); fields' HTML as plain text; tags kept; the languages guessed
// (languageGuess.ts); the optional fields (pronunciation, gender, example) off, since an Anki card
// brings none; and the schedule:
// Anki's review log becomes the deck's marks and each card's current Anki state the seed of its
// FSRS state (holding the marks Anki's state already counts), so it syncs with the log.
// Pure: ids and the clock come from the caller.
import { normaliseTags } from '../../tags';
import { DECK_VERSION, DEFAULT_SOURCE, DEFAULT_TARGET, defaultMeta, type Card, type Deck } from '../../deck';
import { guessDeckLanguages, type DeckLanguageGuess } from '../languageGuess';
import { deriveItems, inLogOrder, MAX_LOG_ENTRIES, MAX_NEW_PER_DAY, type ReviewEntry, type ReviewRecord, type Seed } from '../../srs/reviewLog';
import type { ItemState } from '../../srs/schedule';
import type { AnkiCard, AnkiCollection, AnkiNote, AnkiNotetype } from './collection';
import { fieldToText, type FieldMedia } from './htmlText';
import type { MediaField, MediaKind } from '../../media/ref';

/** A card as imported, before it becomes a stored Card (see toHearthCard). */
export interface ImportedAnkiCard {
  id: string;
  front: string;
  back: string;
  /** The note's tags (Anki's have no spaces; "::" marks a hierarchy and is kept). */
  tags: string[];
  /** Every Anki card behind it is suspended. */
  suspended: boolean;
  /** The note's guid (a note's cloze and reverse cards are this one card: one guid). */
  guid: string;
  /** The files its fields refer to, by name (the import adds their hashes once it has read them). */
  media: MediaUse[];
}

/** A picture or sound a card's field refers to, by the name Anki gives the file. */
export interface MediaUse {
  name: string;
  kind: MediaKind;
  field: MediaField;
}

export interface ImportSummary {
  notes: number;
  /** Anki cards read, and those Hearth could not use (no text on a side, or a third template). */
  cards: number;
  skippedCards: number;
  /** Review log entries carried over. */
  reviews: number;
  /** Files the fields refer to (distinct names), pictures and sounds. */
  images: number;
  sounds: number;
}

export interface ConvertedCollection {
  decks: Deck[];
  reviews: ReviewRecord[];
  /** Each deck's languages as guessed (the decks carry them, or the defaults where nothing said). */
  languages: DeckLanguageGuess[];
  summary: ImportSummary;
  /** The pictures and sounds of each Hearth card (by its id) that refers to any, by file name. */
  mediaUses: Map<string, MediaUse[]>;
}

/**
 * The stored card for an imported one. The single place where the import's card model meets
 * CardSchema: tags and suspension are added here once the deck model has those fields.
 */
export function toHearthCard(card: ImportedAnkiCard): Card {
  return {
    id: card.id,
    front: card.front,
    back: card.back,
    pronunciation: '',
    gender: '',
    example: '',
    tags: normaliseTags(card.tags),
    suspended: card.suspended,
    media: [],
    guid: card.guid,
  };
}

/**
 * The practice key of cloze number `n` (1-based) of a Hearth card: the card's own key for c1, so
 * a single-cloze note is one item; further numbers get their own keys (the cloze practice's).
 */
export const clozeItemKey = (cardId: string, n: number) => (n <= 1 ? cardId : `${cardId}:c${n}`);

type Role = 'forward' | 'reverse' | 'cloze' | 'skip';

function roleOf(card: AnkiCard, notetype: AnkiNotetype | undefined): Role {
  if (!notetype) return 'skip';
  if (notetype.cloze) return 'cloze';
  if (card.ord === 0) return 'forward';
  if (card.ord === 1 && notetype.questions.length >= 2) return 'reverse';
  return 'skip';
}

const DAY_SECONDS = 86_400;

/**
 * A card's FSRS state from Anki's: null for a new card. Review and day-learning cards are due at
 * the start of their Anki day (the collection's day start plus `due` days, so "due today" in
 * Anki is due now in Hearth); learning cards at their exact time. Stability and difficulty are
 * Anki's FSRS memory state; without FSRS, the interval and a middle difficulty stand in.
 */
export function itemStateOf(card: AnkiCard, created: number, lastMark: number | null): ItemState | null {
  if (card.type === 0 || card.type > 3) return null;
  const inSeconds = card.queue === 1 || (card.queue < 0 && card.due > 1_000_000_000);
  const due = inSeconds ? card.due * 1000 : (created + card.due * DAY_SECONDS) * 1000;
  const stability = card.stability ?? Math.max(card.interval, 0.1);
  const difficulty = card.difficulty ?? 5;
  const lastReview = card.lastReview !== null ? card.lastReview * 1000 : (lastMark ?? 0);
  return [due, stability, difficulty, card.type === 2 ? card.interval : 0, 0, card.reps, card.lapses, card.type, lastReview];
}

interface DeckBuild {
  cards: ImportedAnkiCard[];
  /** Anki card id → Hearth item key. */
  keys: Map<number, string>;
  /** What the fronts and backs came from: field names and their HTML, for the languages. */
  frontFields: Set<string>;
  backFields: Set<string>;
  frontHtml: string[];
  backHtml: string[];
  cloze: boolean;
}

/**
 * The deck's languages: the guess; a side nothing said is English beside another language (the
 * app's language, the likeliest the learner reads), else the spec's default for that side.
 */
function languagesOf(guess: DeckLanguageGuess): { sourceLang: string; targetLang: string } {
  const fill = (other: string | undefined, fallback: string, alternative: string) =>
    other !== undefined && other !== 'en' ? 'en' : other === fallback ? alternative : fallback;
  return {
    sourceLang: guess.source?.lang ?? fill(guess.target?.lang, DEFAULT_SOURCE, DEFAULT_TARGET),
    targetLang: guess.target?.lang ?? fill(guess.source?.lang, DEFAULT_TARGET, DEFAULT_SOURCE),
  };
}

export function convertCollection(collection: AnkiCollection, makeId: () => string, now: Date): ConvertedCollection {
  const notes = new Map<number, AnkiNote>(collection.notes.map((note) => [note.id, note]));
  const images = new Set<string>();
  const sounds = new Set<string>();
  const texts = new Map<number, { text: string; media: FieldMedia }[]>();
  const read = (note: AnkiNote) => {
    let fields = texts.get(note.id);
    if (!fields) {
      fields = note.fields.map((field) => {
        const media: FieldMedia = { images: [], sounds: [] };
        const text = fieldToText(field, media);
        for (const name of media.images) images.add(name);
        for (const name of media.sounds) sounds.add(name);
        return { text, media };
      });
      texts.set(note.id, fields);
    }
    return fields;
  };
  const textOf = (note: AnkiNote) => read(note).map((field) => field.text);
  /**
   * Each field's files on the Hearth field where its text lands: the card's front and back (the
   * other way round for a reverse card of its own); a third or later field's on the back, the
   * side Anki shows it on.
   */
  const mediaOf = (note: AnkiNote, reversed: boolean): MediaUse[] =>
    read(note).flatMap(({ media }, index) => {
      const field: MediaField = index === 0 ? (reversed ? 'back' : 'front') : index === 1 && reversed ? 'front' : 'back';
      return [
        ...media.images.map((name) => ({ name, kind: 'image' as const, field })),
        ...media.sounds.map((name) => ({ name, kind: 'sound' as const, field })),
      ].filter((use) => use.name.trim() !== '');
    });

  const byDeck = new Map<number, AnkiCard[]>();
  for (const card of collection.cards) {
    const list = byDeck.get(card.deck);
    if (list) list.push(card);
    else byDeck.set(card.deck, [card]);
  }

  let skipped = 0;
  const built: { deckId: number; build: DeckBuild; bidirectional: boolean }[] = [];
  for (const [deckId, cards] of byDeck) {
    const roles = cards.map((card) => {
      const note = notes.get(card.note);
      return note ? roleOf(card, collection.notetypes.get(note.notetype)) : 'skip';
    });
    // Bidirectional when every note here has exactly its forward and its reverse card here.
    const perNote = new Map<number, Set<Role>>();
    cards.forEach((card, index) => {
      const set = perNote.get(card.note) ?? new Set<Role>();
      set.add(roles[index] as Role);
      perNote.set(card.note, set);
    });
    const bidirectional = [...perNote.values()].every((set) => set.size === 2 && set.has('forward') && set.has('reverse'));
    const build: DeckBuild = { cards: [], keys: new Map(), frontFields: new Set(), backFields: new Set(), frontHtml: [], backHtml: [], cloze: false };
    const notedFields = (note: AnkiNote, role: Role) => {
      const names = collection.notetypes.get(note.notetype)?.fields ?? [];
      const [front, back] = role === 'reverse' ? [1, 0] : [0, 1];
      build.frontFields.add(names[front] ?? '');
      build.backFields.add(names[back] ?? '');
      build.frontHtml.push(note.fields[front] ?? '');
      build.backHtml.push(note.fields[back] ?? '');
      if (role === 'cloze') build.cloze = true;
    };
    const shared = new Map<number, ImportedAnkiCard>();
    const suspendedAll = new Map<ImportedAnkiCard, boolean>();
    cards.forEach((card, index) => {
      const role = roles[index] as Role;
      const note = notes.get(card.note);
      if (role === 'skip' || !note) {
        skipped += 1;
        return;
      }
      const fields = textOf(note);
      const first = fields[0] ?? '';
      const second = fields[1] ?? '';
      let imported: ImportedAnkiCard | undefined;
      let key: string;
      if (role === 'cloze' || bidirectional) {
        imported = shared.get(note.id);
        if (!imported) {
          // A cloze card's back is Anki's "Back Extra", often empty: the flip reveals the deletions.
          imported = { id: makeId(), front: first, back: second, tags: [...note.tags], suspended: true, guid: note.guid, media: mediaOf(note, false) };
          const backNeeded = role !== 'cloze';
          if (imported.front.trim() === '' || (backNeeded && imported.back.trim() === '')) {
            skipped += 1;
            return;
          }
          shared.set(note.id, imported);
          build.cards.push(imported);
          notedFields(note, role === 'cloze' ? 'cloze' : 'forward');
        }
        key = role === 'cloze' ? clozeItemKey(imported.id, card.ord + 1) : role === 'reverse' ? `${imported.id}:reverse` : imported.id;
      } else {
        const [front, back] = role === 'reverse' ? [second, first] : [first, second];
        if (front.trim() === '' || back.trim() === '') {
          skipped += 1;
          return;
        }
        // A reverse card kept apart (its deck is not two-way) is a card of its own: the note's guid
        // stays with the forward one, and this one gets its own at export.
        imported = {
          id: makeId(),
          front,
          back,
          tags: [...note.tags],
          suspended: true,
          guid: role === 'reverse' ? '' : note.guid,
          media: mediaOf(note, role === 'reverse'),
        };
        build.cards.push(imported);
        notedFields(note, role);
        key = imported.id;
      }
      suspendedAll.set(imported, (suspendedAll.get(imported) ?? true) && card.queue === -1);
      build.keys.set(card.id, key);
    });
    for (const [card, suspended] of suspendedAll) card.suspended = suspended;
    if (build.cards.length > 0) built.push({ deckId, build, bidirectional });
  }

  const lastMarks = new Map<number, number>();
  for (const review of collection.reviews) if (review.ease >= 1 && review.ease <= 4) lastMarks.set(review.card, review.at);
  const cardsById = new Map<number, AnkiCard>(collection.cards.map((card) => [card.id, card]));

  const decks: Deck[] = [];
  const reviews: ReviewRecord[] = [];
  const languages: DeckLanguageGuess[] = [];
  const mediaUses = new Map<string, MediaUse[]>();
  let carried = 0;
  const meta = defaultMeta();
  const sorted = built
    .map((entry) => ({ ...entry, name: collection.decks.get(entry.deckId)?.name ?? 'Anki deck' }))
    .sort((a, b) => a.name.localeCompare(b.name));
  for (const { deckId, build, bidirectional, name } of sorted) {
    const states = new Map<string, ItemState>();
    for (const [cardId, key] of build.keys) {
      const card = cardsById.get(cardId);
      const state = card ? itemStateOf(card, collection.created, lastMarks.get(cardId) ?? null) : null;
      if (state) states.set(key, state);
    }
    // Marks of cards that are new again (forgotten in Anki) are left out: replaying them would
    // schedule a card Anki shows as new.
    let log: ReviewEntry[] = [];
    for (const review of collection.reviews) {
      const key = build.keys.get(review.card);
      if (key === undefined || !states.has(key) || review.ease < 1 || review.ease > 4) continue;
      log.push([key, review.at, review.ease === 1 ? 'again' : 'good']);
    }
    log = inLogOrder(log);
    // Each Anki state holds every Anki mark of its card: the seed is through the last of them.
    const through = new Map<string, number>();
    for (const [key, at] of log) through.set(key, at);
    const seeds: Record<string, Seed> = {};
    for (const [key, state] of states) seeds[key] = { through: through.get(key) ?? 0, state };
    if (log.length > MAX_LOG_ENTRIES) log.splice(0, log.length - MAX_LOG_ENTRIES);
    carried += log.length;
    const newPerDay = Math.min(MAX_NEW_PER_DAY, Math.max(0, Math.round(collection.decks.get(deckId)?.newPerDay ?? 20)));
    const guess = guessDeckLanguages({
      name,
      tags: build.cards.flatMap((card) => card.tags),
      frontFields: [...build.frontFields],
      backFields: [...build.backFields],
      frontHtml: build.frontHtml,
      backHtml: build.backHtml,
      fronts: build.cards.map((card) => card.front),
      backs: build.cards.map((card) => card.back),
      cloze: build.cloze,
    });
    languages.push(guess);
    for (const card of build.cards) if (card.media.length > 0) mediaUses.set(card.id, card.media);
    decks.push({
      ...meta,
      ...languagesOf(guess),
      // An Anki card brings no pronunciation, gender or example: their columns stay off.
      pronunciationField: false,
      genderField: false,
      exampleField: false,
      id: makeId(),
      name,
      bidirectional,
      cards: build.cards.map(toHearthCard),
      createdAt: now.toISOString(),
      type: 'deck',
      version: DECK_VERSION,
    });
    reviews.push({ newPerDay, seeds, items: deriveItems(seeds, log), log });
  }

  return {
    decks,
    reviews,
    languages,
    summary: {
      notes: collection.notes.length,
      cards: collection.cards.length,
      skippedCards: skipped,
      reviews: carried,
      images: images.size,
      sounds: sounds.size,
    },
    mediaUses,
  };
}

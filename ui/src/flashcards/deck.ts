// The deck model and its rules (SPEC.md sections 3, 5 and 9): languages, validity, card counting,
// save normalisation and the order of the deck list. Pure: ids and clocks come from the caller.
import * as v from 'valibot';
import { flag, record, text } from '../lib/schema';
import { isClozeFront } from './cloze';
import { normaliseTags } from './tags';
import { isLanguageTag } from './languages';
import { mediaList } from './media/ref';

export const LANGUAGES = [
  { code: 'en', name: 'English' },
  { code: 'nl', name: 'Dutch' },
  { code: 'fr', name: 'French' },
  { code: 'hu', name: 'Hungarian' },
] as const;

/** A deck language: the spec's four, or any well-formed language tag (languages.ts). */
export type Language = string;

export const DEFAULT_SOURCE: Language = 'en';
export const DEFAULT_TARGET: Language = 'fr';

/** A language a deck can carry; decks stored with the spec's four read as before. */
export const isLanguage = isLanguageTag;

/**
 * A card's tags as stored: a list of non-empty texts without spaces (as Anki's tags are). A text
 * holding spaces is several tags; duplicates and anything but text are dropped; missing is [].
 */
const tagList = v.fallback(
  v.pipe(
    v.array(v.unknown()),
    v.transform((items) => normaliseTags(items.filter((item): item is string => typeof item === 'string'))),
  ),
  () => [],
);

/**
 * One card as stored; a missing or non-text field is ''. Storage gives cards without an id one.
 * `tags` (missing: []) limit practice to a part of a deck; a `suspended` card (missing: false) is
 * left out of practice and the due counts.
 */
export const CardSchema = record({
  id: text,
  front: text,
  back: text,
  pronunciation: text,
  gender: text,
  example: text,
  tags: tagList,
  suspended: flag(false),
  /**
   * Texts another device wrote into this card at the same time as this one (sync keeps the losing
   * texts here, one per line); the editor shows them until the learner dismisses them. Missing: none.
   */
  conflict: v.fallback(v.optional(v.string()), undefined),
  /** The card's pictures and sounds (media/ref.ts), each in one of its fields. Missing: none. */
  media: mediaList,
  /**
   * The Anki note id (guid) the card keeps through sync, backups and exports, so an export imported
   * over the original adds no duplicate; '' until the card is given one.
   */
  guid: text,
});

export type Card = v.InferOutput<typeof CardSchema>;

/** The card's texts the editor's table edits. */
export type CardField = Exclude<keyof Card, 'id' | 'tags' | 'suspended' | 'conflict' | 'media' | 'guid'>;

const language = (fallback: Language) => v.fallback(v.custom<Language>(isLanguage), fallback);

/**
 * Everything about a deck except its identity, cards and timestamps: what the editor's form edits.
 * A missing or unusable field is its default.
 */
export const metaEntries = {
  name: text,
  author: text,
  description: text,
  sourceLang: language(DEFAULT_SOURCE),
  targetLang: language(DEFAULT_TARGET),
  bidirectional: flag(false),
  pronunciationField: flag(true),
  genderField: flag(true),
  exampleField: flag(true),
  /** Practice plays the front's sound when a card comes up (media/CardMedia.tsx). Missing: off. */
  autoplay: flag(false),
};

export const DeckMetaSchema = record(metaEntries);

export type DeckMeta = v.InferOutput<typeof DeckMetaSchema>;

export interface Deck extends DeckMeta {
  id: string;
  cards: Card[];
  createdAt: string;
  type: 'deck';
  version: 1;
}

export const DECK_VERSION = 1;

/** The editable metadata of a deck. */
export function metaOf(deck: DeckMeta): DeckMeta {
  return {
    name: deck.name,
    author: deck.author,
    description: deck.description,
    sourceLang: deck.sourceLang,
    targetLang: deck.targetLang,
    bidirectional: deck.bidirectional,
    pronunciationField: deck.pronunciationField,
    genderField: deck.genderField,
    exampleField: deck.exampleField,
    autoplay: deck.autoplay,
  };
}

export function defaultMeta(): DeckMeta {
  return v.parse(DeckMetaSchema, {});
}

/** A card with no text; the editor gives each one it makes a new guid (guid.ts). */
export function emptyCard(id: string, guid = ''): Card {
  return { id, front: '', back: '', pronunciation: '', gender: '', example: '', tags: [], suspended: false, media: [], guid };
}

const isBlank = (text: string) => text.trim() === '';

/**
 * A card practice can use: both sides have text (SPEC.md 5). A cloze card holds its answers in
 * its front, so a front with a deletion is complete with or without a back (Anki's "Back Extra").
 */
export function isCompleteCard(card: Pick<Card, 'front' | 'back'>): boolean {
  return !isBlank(card.front) && (!isBlank(card.back) || isClozeFront(card.front));
}

/** The editor's count: cards where the front or the back has text. */
export function countFilledCards(cards: readonly Card[]): number {
  let count = 0;
  for (const card of cards) if (!isBlank(card.front) || !isBlank(card.back)) count += 1;
  return count;
}

/** Save Deck is enabled when the name has text and at least one card is complete. */
export function isDeckValid(name: string, cards: readonly Card[]): boolean {
  return !isBlank(name) && cards.some(isCompleteCard);
}

/** 'EN', 'DE', 'PT-BR': how the screens show a language code. */
export { langLabel } from './languages';

/** The name a screen shows: 'Untitled deck' when the deck has none. */
export const displayName = (name: string) => (isBlank(name) ? 'Untitled deck' : name.trim());

/** The spec's pill text, 'N cards', kept literally (also for one card). */
export const cardCount = (count: number) => `${count} cards`;

/**
 * The record written on save: incomplete cards dropped, texts trimmed, createdAt reset to now
 * (the spec resets it on every save), and the constant type and version.
 */
export function normaliseForSave(id: string, meta: DeckMeta, cards: readonly Card[], now: Date): Deck {
  return {
    id,
    name: meta.name.trim(),
    author: meta.author.trim(),
    description: meta.description.trim(),
    sourceLang: meta.sourceLang,
    targetLang: meta.targetLang,
    bidirectional: meta.bidirectional,
    pronunciationField: meta.pronunciationField,
    genderField: meta.genderField,
    exampleField: meta.exampleField,
    autoplay: meta.autoplay,
    cards: cards.filter(isCompleteCard).map((card) => ({
      id: card.id,
      front: card.front.trim(),
      back: card.back.trim(),
      pronunciation: card.pronunciation.trim(),
      gender: card.gender.trim(),
      example: card.example.trim(),
      tags: normaliseTags(card.tags),
      suspended: card.suspended,
      media: card.media,
      guid: card.guid,
      // A conflict note stays until the learner dismisses it.
      ...(card.conflict ? { conflict: card.conflict } : {}),
    })),
    createdAt: now.toISOString(),
    type: 'deck',
    version: DECK_VERSION,
  };
}

/** A card as it is written: `tags`, `suspended`, `media` and `guid` only when they differ from their defaults. */
export type StoredCard = Omit<Card, 'tags' | 'suspended' | 'media' | 'guid'> & Partial<Pick<Card, 'tags' | 'suspended' | 'media' | 'guid'>>;

/**
 * The card as storage, backups and sync write it: a card without tags, media or guid that is not
 * suspended is written exactly as before those existed, so stored decks, drafts and synced copies
 * do not change.
 */
export function storedCard(card: Card): StoredCard {
  const { tags, suspended, conflict, media, guid, ...rest } = card;
  return {
    ...rest,
    ...(tags.length > 0 ? { tags } : {}),
    ...(suspended ? { suspended } : {}),
    ...(conflict ? { conflict } : {}),
    ...(media.length > 0 ? { media } : {}),
    ...(guid !== '' ? { guid } : {}),
  };
}

/** Deck metadata as written: `autoplay` only when on, so a deck without it is stored as before it existed. */
function storedMeta<T extends object>(meta: T): T {
  if (!('autoplay' in meta) || (meta as { autoplay?: unknown }).autoplay !== false) return meta;
  const rest: Record<string, unknown> = { ...meta };
  delete rest.autoplay;
  return rest as T;
}

/** A deck (or draft, whose metadata sits in `meta`) with its cards as storedCard writes them. */
export function storedCards<T extends { cards: readonly Card[] }>(value: T): Omit<T, 'cards'> & { cards: StoredCard[] } {
  const withMeta = 'meta' in value && value.meta && typeof value.meta === 'object' ? { ...value, meta: storedMeta(value.meta) } : value;
  return { ...storedMeta(withMeta), cards: value.cards.map(storedCard) };
}

/** The index after saving `id`: it moves (or is added) to the front, without duplicates. */
export function moveToFront(index: readonly string[], id: string): string[] {
  return [id, ...index.filter((other) => other !== id)];
}

const time = (iso: string) => {
  const value = Date.parse(iso);
  return Number.isNaN(value) ? Number.NEGATIVE_INFINITY : value;
};

/** The deck list's order: createdAt, newest first; decks without a readable date go last. */
export function sortNewestFirst<T extends { createdAt: string }>(decks: readonly T[]): T[] {
  return [...decks].sort((a, b) => time(b.createdAt) - time(a.createdAt));
}

// The deck model and its rules (SPEC.md sections 3, 5 and 9): languages, validity, card counting,
// save normalisation and the order of the deck list. Pure: ids and clocks come from the caller.
import * as v from 'valibot';
import { flag, record, text } from '../lib/schema';
import { isLanguageTag } from './languages';

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

/** One card as stored; a missing or non-text field is ''. Storage gives cards without an id one. */
export const CardSchema = record({
  id: text,
  front: text,
  back: text,
  pronunciation: text,
  gender: text,
  example: text,
});

export type Card = v.InferOutput<typeof CardSchema>;

export type CardField = Exclude<keyof Card, 'id'>;

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
  };
}

export function defaultMeta(): DeckMeta {
  return v.parse(DeckMetaSchema, {});
}

export function emptyCard(id: string): Card {
  return { id, front: '', back: '', pronunciation: '', gender: '', example: '' };
}

const isBlank = (text: string) => text.trim() === '';

/** A card practice can use: both sides have text (SPEC.md 5). */
export function isCompleteCard(card: Card): boolean {
  return !isBlank(card.front) && !isBlank(card.back);
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
    cards: cards.filter(isCompleteCard).map((card) => ({
      id: card.id,
      front: card.front.trim(),
      back: card.back.trim(),
      pronunciation: card.pronunciation.trim(),
      gender: card.gender.trim(),
      example: card.example.trim(),
    })),
    createdAt: now.toISOString(),
    type: 'deck',
    version: DECK_VERSION,
  };
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

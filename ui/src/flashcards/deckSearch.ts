// The deck list's search: every word typed must appear in the deck's name, author, description or
// languages (code or English name), ignoring case and accents, so "francais" finds "Français".
import type { Deck } from './deck';
import { languageName } from './languages';

/** Lower case without accents: what a search compares. */
export function fold(value: string): string {
  return value.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

const languageWords = (code: string) => `${code} ${languageName(code)}`;

/** The words a deck can be found by. */
export function searchText(deck: Pick<Deck, 'name' | 'author' | 'description' | 'sourceLang' | 'targetLang'>): string {
  return fold([deck.name, deck.author, deck.description, languageWords(deck.sourceLang), languageWords(deck.targetLang)].join('\n'));
}

/** The decks matching every word of `query`, in their order; all of them for a blank query. */
export function filterDecks<D extends Pick<Deck, 'name' | 'author' | 'description' | 'sourceLang' | 'targetLang'>>(decks: readonly D[], query: string): D[] {
  const words = fold(query)
    .split(/\s+/)
    .filter((word) => word !== '');
  if (words.length === 0) return [...decks];
  return decks.filter((deck) => {
    const text = searchText(deck);
    return words.every((word) => text.includes(word));
  });
}

/** From this many decks on, the list starts compact: one line per deck, so hundreds stay scannable. */
export const COMPACT_FROM = 13;

// Helpers for the flashcard browser tests: decks written straight into localStorage under the
// spec's keys, and reads of what the app stored.
import type { Page } from 'playwright-core';

export interface SeedCard {
  id?: string;
  front: string;
  back: string;
  pronunciation?: string;
  gender?: string;
  example?: string;
  tags?: string[];
  suspended?: boolean;
}

export interface SeedDeck {
  id: string;
  name: string;
  author?: string;
  description?: string;
  sourceLang?: string;
  targetLang?: string;
  bidirectional?: boolean;
  createdAt?: string;
  cards: SeedCard[];
}

export function deckRecord(deck: SeedDeck): Record<string, unknown> {
  return {
    author: '',
    description: '',
    sourceLang: 'en',
    targetLang: 'fr',
    bidirectional: false,
    pronunciationField: true,
    genderField: true,
    exampleField: true,
    createdAt: '2025-01-01T12:00:00.000Z',
    type: 'deck',
    version: 1,
    ...deck,
    cards: deck.cards.map((card, index) => ({
      id: `${deck.id}-card-${index}`,
      pronunciation: '',
      gender: '',
      example: '',
      ...card,
    })),
  };
}

/** Replaces the browser's storage with these decks (index in the given order) and raw entries. */
export async function seed(page: Page, baseUrl: string, decks: SeedDeck[], raw: Record<string, string> = {}): Promise<void> {
  if (!page.url().startsWith(baseUrl)) await page.goto(`${baseUrl}/flashcards`);
  const entries: [string, string][] = [
    ['decks:index', JSON.stringify(decks.map((deck) => deck.id))],
    ...decks.map((deck): [string, string] => [`decks:${deck.id}`, JSON.stringify(deckRecord(deck))]),
    ...Object.entries(raw),
  ];
  await page.evaluate((pairs) => {
    localStorage.clear();
    for (const [key, value] of pairs) localStorage.setItem(key, value);
  }, entries);
}

export async function readStorage(page: Page, key: string): Promise<unknown> {
  const raw = await page.evaluate((k) => localStorage.getItem(k), key);
  return raw === null ? null : (JSON.parse(raw) as unknown);
}

export const FRENCH: SeedDeck = {
  id: 'deck-french',
  name: 'French basics',
  author: 'Ada',
  description: 'Animals and numbers',
  cards: [
    { front: 'cat', back: 'chat', pronunciation: '/ʃa/', gender: 'm', example: 'Le chat dort.' },
    { front: 'dog', back: 'chien' },
    { front: 'one', back: 'un' },
  ],
};

/**
 * Fills the rest of the browser's storage quota with `filler:{i}` entries, halving the chunk on
 * each refusal until it is below `smallest` characters: what is left is too little for a write
 * larger than that.
 */
export async function fillStorage(page: Page, smallest: number): Promise<void> {
  await page.evaluate((smallest) => {
    let chunk = 'x'.repeat(1 << 20);
    for (let i = 0; ; i += 1) {
      try {
        localStorage.setItem(`filler:${i}`, chunk);
      } catch {
        if (chunk.length < smallest) break;
        chunk = chunk.slice(0, chunk.length / 2);
      }
    }
  }, smallest);
}

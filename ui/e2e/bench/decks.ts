// What the flashcard benchmarks share: the decks they seed (one 5,000-card deck among 300 small
// ones) and the clock they read (a click to the first frame after the screen is complete).
import type { Page } from 'playwright-core';
import type { SeedDeck } from '../flashcards-support/seed';

export const BIG_CARDS = 5000;
export const DECKS = 300;
export const SMALL_CARDS = 20;

/** A deck of 5,000 cards with every field filled, newest of all so it heads the list. */
export function bigDeck(): SeedDeck {
  return {
    id: 'big',
    name: 'Big deck',
    author: 'Bench',
    createdAt: '2030-01-01T00:00:00.000Z',
    cards: Array.from({ length: BIG_CARDS }, (_, i) => ({
      id: `big-${i}`,
      front: `word number ${i}`,
      back: `mot numéro ${i}`,
      pronunciation: `/mo ${i}/`,
      gender: i % 2 ? 'm' : 'f',
      example: `Voici le mot numéro ${i} dans une phrase.`,
    })),
  };
}

/** Deck number `n` of the many small ones: 20 cards, front and back only. */
export function smallDeck(n: number): SeedDeck {
  return {
    id: `deck-${n}`,
    name: `Deck ${n}`,
    author: 'Bench',
    description: `Deck number ${n} for the benchmark.`,
    createdAt: new Date(Date.UTC(2025, 0, 1) + n * 60_000).toISOString(),
    cards: Array.from({ length: SMALL_CARDS }, (_, i) => ({ id: `deck-${n}-card-${i}`, front: `front ${n}.${i}`, back: `back ${n}.${i}` })),
  };
}

/**
 * Clicks `selector` inside the page and resolves with the ms until at least `count` elements match
 * `doneSelector` and one more frame has run.
 */
export function clickAndWait(page: Page, selector: string, doneSelector: string, count = 1): Promise<number> {
  return page.evaluate(
    ({ selector, doneSelector, count }) =>
      new Promise<number>((resolve, reject) => {
        const target = document.querySelector<HTMLElement>(selector);
        if (!target) {
          reject(new Error(`no ${selector}`));
          return;
        }
        const isDone = () => document.querySelectorAll(doneSelector).length >= count;
        const start = performance.now();
        target.click();
        const poll = () => {
          if (isDone()) {
            // One more frame so style, layout and paint of the finished screen are included.
            requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - start), 0));
          } else if (performance.now() - start > 20_000) {
            reject(new Error(`timed out waiting for ${String(count)} × ${doneSelector}`));
          } else {
            requestAnimationFrame(poll);
          }
        };
        poll();
      }),
    { selector, doneSelector, count },
  );
}

export const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
export const fmt = (values: number[]) => `median ${median(values).toFixed(1)} ms (runs: ${values.map((v) => v.toFixed(1)).join(', ')})`;

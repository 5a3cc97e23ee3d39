// Scale benchmark for spaced repetition (issue 15), measured like flashcards-scale: 300 decks of 20
// cards and a 5,000-card deck, with review logs of 10,000 marks in all, against the real binary
// in Chromium. Figures: the deck list (due counts from every log) from the click on the
// Flashcards link to the frame after the last deck card, and "Review due" on the 5,000-card
// deck from the click to the first card on screen. The same list without the logs is measured in
// the same runs, so the logs' cost shows even on a busy machine.
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Page } from 'playwright-core';
import { launchBrowser } from '../support/browser';
import { startServer, type RunningServer } from '../support/server';
import { deckRecord, type SeedDeck } from '../flashcards-support/seed';
import { emptyReviews, recordMark, toStored, type ReviewRecord } from '../../src/flashcards/srs/reviewLog';

const BIG_CARDS = 5000;
const DECKS = 300;
const SMALL_CARDS = 20;
/** Marks per small deck, and on the big deck: 300 × 30 + 1,000 = 10,000. */
const SMALL_REVIEWS = 30;
const BIG_REVIEWS = 1000;
const RUNS = 5;
const DAY = 86_400_000;

function bigDeck(): SeedDeck {
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

function smallDeck(n: number): SeedDeck {
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
 * A log of `count` marks spread over the last 60 days, cycling through `keys` (so items get
 * several marks each), one mark in five a "Didn’t know": some items are due now, others later.
 */
function logFor(keys: readonly string[], count: number, now: number): ReviewRecord {
  let log = emptyReviews();
  const start = now - 60 * DAY;
  for (let i = 0; i < count; i += 1) {
    const key = keys[i % keys.length] ?? '';
    log = recordMark(log, key, i % 5 === 4 ? 'again' : 'good', start + Math.floor((i / count) * 60 * DAY));
  }
  return log;
}

function clickAndWait(page: Page, selector: string, doneSelector: string, count = 1): Promise<number> {
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

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const fmt = (values: number[]) => `median ${median(values).toFixed(1)} ms (runs: ${values.map((v) => v.toFixed(1)).join(', ')})`;

describe('spaced repetition at scale', () => {
  let server: RunningServer | undefined;
  const results: Record<'list' | 'listNoLogs' | 'review' | 'practice', number[]> = { list: [], listNoLogs: [], review: [], practice: [] };

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.stop();
    console.log('\nSpaced repetition scale benchmark (Chromium, Performance API):');
    console.log(`  deck list, ${DECKS + 1} decks with logs of ${DECKS * SMALL_REVIEWS + BIG_REVIEWS} reviews: ${fmt(results.list)}`);
    console.log(`  deck list, the same decks without logs (same runs): ${fmt(results.listNoLogs)}`);
    console.log(`  "Review due" start, ${BIG_CARDS} cards: ${fmt(results.review)}`);
    console.log(`  practice start, ${BIG_CARDS} cards (with its log): ${fmt(results.practice)}`);
  });

  it('measures the deck list with review logs and the start of Review due', async () => {
    if (!server) throw new Error('server not started');
    const base = server.url;
    const now = Date.now();
    const big = bigDeck();
    const decks = [big, ...Array.from({ length: DECKS }, (_, n) => smallDeck(n))];
    const logs = new Map<string, ReviewRecord>();
    logs.set('big', logFor(big.cards.map((card) => card.id ?? ''), BIG_REVIEWS, now));
    for (const deck of decks.slice(1)) logs.set(deck.id, logFor(deck.cards.map((card) => card.id ?? ''), SMALL_REVIEWS, now));
    const entries = [
      ['decks:index', JSON.stringify(decks.map((d) => d.id))],
      ...decks.map((d) => [`decks:${d.id}`, JSON.stringify(deckRecord(d))]),
      ...[...logs].map(([id, log]) => [`reviews:${id}`, JSON.stringify(toStored(log))]),
    ];
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(`${base}/flashcards/new`);
      await page.evaluate((pairs) => {
        localStorage.clear();
        for (const [key, value] of pairs) localStorage.setItem(key ?? '', value ?? '');
      }, entries);
      const bytes = await page.evaluate(() => {
        let total = 0;
        for (let i = 0; i < localStorage.length; i += 1) {
          const key = localStorage.key(i) ?? '';
          if (key.startsWith('reviews:')) total += (localStorage.getItem(key) ?? '').length;
        }
        return total;
      });
      console.log(`seeded ${decks.length} decks; their review logs are ${(bytes / 1024).toFixed(0)} KiB of JSON`);

      for (let run = 0; run < RUNS; run += 1) {
        await page.goto(`${base}/flashcards/new`);
        await page.locator('input[data-field="front"]').first().waitFor();
        results.list.push(await clickAndWait(page, 'nav a[href="/flashcards"]', '.deck-card', DECKS + 1));

        // The same list with the logs set aside.
        await page.goto(`${base}/flashcards/new`);
        await page.locator('input[data-field="front"]').first().waitFor();
        await page.evaluate(() => {
          const stash: [string, string][] = [];
          for (let i = localStorage.length - 1; i >= 0; i -= 1) {
            const key = localStorage.key(i) ?? '';
            if (key.startsWith('reviews:')) stash.push([key, localStorage.getItem(key) ?? '']);
          }
          for (const [key] of stash) localStorage.removeItem(key);
          sessionStorage.setItem('stash', JSON.stringify(stash));
        });
        results.listNoLogs.push(await clickAndWait(page, 'nav a[href="/flashcards"]', '.deck-card', DECKS + 1));
        await page.evaluate(() => {
          for (const [key, value] of JSON.parse(sessionStorage.getItem('stash') ?? '[]') as [string, string][]) localStorage.setItem(key, value);
        });
        await page.goto(`${base}/flashcards/new`);
        await page.locator('input[data-field="front"]').first().waitFor();
        await clickAndWait(page, 'nav a[href="/flashcards"]', '.deck-card', DECKS + 1);

        results.review.push(await clickAndWait(page, 'a[href="/flashcards/big/review"]', '.flipcard--current .flipcard__text'));
        // No session to restore on the next run.
        await page.evaluate(() => localStorage.removeItem('practice:session:big'));

        await page.goto(`${base}/flashcards/new`);
        await page.locator('input[data-field="front"]').first().waitFor();
        await clickAndWait(page, 'nav a[href="/flashcards"]', '.deck-card', DECKS + 1);
        results.practice.push(await clickAndWait(page, 'a[href="/flashcards/big/practice"]', '.flipcard--current .flipcard__text'));
        await page.evaluate(() => localStorage.removeItem('practice:session:big'));
      }
    } finally {
      await browser.close();
    }
  });
});

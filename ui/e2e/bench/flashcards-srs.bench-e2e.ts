// Scale benchmark for spaced repetition (issue 15), measured like flashcards-scale: 300 decks of 20
// cards and a 5,000-card deck, with review logs of 10,000 marks in all, against the real binary
// in Chromium. Figures: the deck list (due counts from every log) from the click on the
// Flashcards link to the frame after the last deck card, and "Review due" on the 5,000-card
// deck from the click to the first card on screen. The same list without the logs is measured in
// the same runs, so the logs' cost shows even on a busy machine.
import { afterAll, beforeAll, describe, it } from 'vitest';
import { launchBrowser } from '../support/browser';
import { startServer, type RunningServer } from '../support/server';
import { deckRecord } from '../flashcards-support/seed';
import { BIG_CARDS, bigDeck, clickAndWait, DECKS, fmt, smallDeck } from './decks';
import { emptyReviews, recordMark, toStored, type ReviewRecord } from '../../src/flashcards/srs/reviewLog';

/** Marks per small deck, and on the big deck: 300 × 30 + 1,000 = 10,000. */
const SMALL_REVIEWS = 30;
const BIG_REVIEWS = 1000;
const RUNS = 5;
const DAY = 86_400_000;

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
    logs.set(
      'big',
      logFor(
        big.cards.map((card) => card.id ?? ''),
        BIG_REVIEWS,
        now,
      ),
    );
    for (const deck of decks.slice(1))
      logs.set(
        deck.id,
        logFor(
          deck.cards.map((card) => card.id ?? ''),
          SMALL_REVIEWS,
          now,
        ),
      );
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

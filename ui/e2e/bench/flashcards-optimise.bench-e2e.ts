// "Optimise my schedule" on 20,000 reviews (the review log's bound), against the real binary in
// Chromium: from the click to the outcome on screen (the WebAssembly's download from the local
// server, the training items, FSRS's optimiser on one thread in the Worker, the check of both
// fits); the first run fetches the module, later ones find it in the HTTP cache.
import { afterAll, beforeAll, describe, it } from 'vitest';
import { launchBrowser } from '../support/browser';
import { startServer, type RunningServer } from '../support/server';
import { deckRecord, type SeedDeck } from '../flashcards-support/seed';
import { deriveItems } from '../../src/flashcards/srs/reviewLog';
import { trainingSet } from '../../src/flashcards/srs/optimise';
import { simulatedLog } from '../../src/flashcards/srs/simulatedLog';
import { fmt } from './decks';

const REVIEWS = 20_000;
const RUNS = 3;

describe('Optimise my schedule at scale', () => {
  let server: RunningServer | undefined;
  const times: number[] = [];
  let usable = 0;

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.stop();
    console.log('\nOptimise my schedule (Chromium, one thread in a Worker):');
    console.log(`  ${REVIEWS} reviews (${usable} usable), click to outcome: ${fmt(times)}`);
  });

  it('measures the optimiser on 20,000 reviews', async () => {
    if (!server) throw new Error('server not started');
    const now = Date.now();
    const log = simulatedLog(REVIEWS, now - 3_600_000);
    usable = trainingSet(log).count;
    const cards = new Set(log.map(([key]) => key)).size;
    const deck: SeedDeck = {
      id: 'deck-big',
      name: 'Big',
      cards: Array.from({ length: cards }, (_, i) => ({ id: `card-${i}`, front: `w${i}`, back: `W${i}` })),
    };
    const entries: [string, string][] = [
      ['decks:index', JSON.stringify([deck.id])],
      [`decks:${deck.id}`, JSON.stringify(deckRecord(deck))],
      [`reviews:${deck.id}`, JSON.stringify({ type: 'reviews', version: 1, newPerDay: 20, seeds: {}, items: deriveItems({}, log), log })],
    ];
    const browser = await launchBrowser();
    try {
      const context = await browser.newContext({ serviceWorkers: 'block' });
      const page = await context.newPage();
      page.setDefaultTimeout(600_000);
      await page.goto(`${server.url}/flashcards`);
      await page.evaluate((pairs) => {
        localStorage.clear();
        for (const [key, value] of pairs) localStorage.setItem(key, value);
      }, entries);
      for (let run = 0; run < RUNS; run += 1) {
        await page.goto(`${server.url}/flashcards/${deck.id}/progress`);
        await page.getByRole('button', { name: 'Optimise my schedule' }).waitFor();
        const started = await page.evaluate(() => performance.now());
        await page.getByRole('button', { name: 'Optimise my schedule' }).click();
        await page.locator('.optimise__outcome').waitFor();
        times.push((await page.evaluate(() => performance.now())) - started);
        // The next run starts from the defaults again.
        const reset = page.getByRole('button', { name: 'Use the default parameters' });
        if (await reset.count()) await reset.click();
      }
    } finally {
      await browser.close();
    }
  });
});

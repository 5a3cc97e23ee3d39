// Scale benchmark for the flashcard tool (issue 5): a 5,000-card deck among 300 decks, measured in
// Chromium with the Performance API against the real binary. Each figure is the time from the
// user's action (click or key event timestamp) to the first frame after the screen is complete.
// Targets: deck list ≤ 300 ms, editor open ≤ 500 ms, keystroke < 50 ms, practice start ≤ 100 ms.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser';
import { startServer, type RunningServer } from '../support/server';
import { deckRecord } from '../flashcards-support/seed';
import { BIG_CARDS, bigDeck, clickAndWait, DECKS, fmt, smallDeck } from './decks';

const RUNS = 3;

describe('flashcards at scale', () => {
  let server: RunningServer | undefined;
  const results: Record<string, number[]> = { list: [], editor: [], editorAll: [], keystroke: [], practice: [] };

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.stop();
    console.log('\nFlashcards scale benchmark (Chromium, Performance API):');
    console.log(`  deck list, ${DECKS + 1} decks:        ${fmt(results.list ?? [])}`);
    console.log(`  editor open, ${BIG_CARDS} cards (first rows interactive): ${fmt(results.editor ?? [])}`);
    console.log(`  editor, all ${BIG_CARDS} rows mounted in the background:  ${fmt(results.editorAll ?? [])}`);
    console.log(`  keystroke in a ${BIG_CARDS}-card deck: ${fmt(results.keystroke ?? [])}`);
    console.log(`  practice start, ${BIG_CARDS} cards:   ${fmt(results.practice ?? [])}`);
  });

  it('measures the deck list, the editor, typing and practice start', async () => {
    if (!server) throw new Error('server not started');
    const base = server.url;
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.goto(`${base}/flashcards/new`);
      const decks = [bigDeck(), ...Array.from({ length: DECKS }, (_, n) => smallDeck(n))];
      const entries = [['decks:index', JSON.stringify(decks.map((d) => d.id))], ...decks.map((d) => [`decks:${d.id}`, JSON.stringify(deckRecord(d))])];
      await page.evaluate((pairs) => {
        localStorage.clear();
        for (const [key, value] of pairs) localStorage.setItem(key ?? '', value ?? '');
      }, entries);
      const bytes = await page.evaluate(() => (localStorage.getItem('decks:big') ?? '').length);
      console.log(`seeded ${decks.length} decks; the big deck is ${(bytes / 1024).toFixed(0)} KiB of JSON`);

      for (let run = 0; run < RUNS; run += 1) {
        // Start from the editor of a new deck so the code is loaded and only rendering is measured.
        await page.goto(`${base}/flashcards/new`);
        await page.locator('input[data-field="front"]').first().waitFor();

        results.list?.push(await clickAndWait(page, 'nav a[href="/flashcards"]', '.deck-card', DECKS + 1));

        results.editor?.push(await clickAndWait(page, 'a[href="/flashcards/big/edit"]', 'input[data-field="front"]', 100));
        const openedAt = await page.evaluate(() => performance.now());
        await page
          .locator('input[data-field="front"]')
          .nth(BIG_CARDS - 1)
          .waitFor({ state: 'attached' });
        const editorOpen = results.editor?.at(-1) ?? 0;
        results.editorAll?.push(editorOpen + (await page.evaluate((t) => performance.now() - t, openedAt)));
        // Let the background mounting and the first layout settle before typing, as a person would.
        await page.waitForTimeout(500);

        // Typing in the middle of the deck: from each key event's timestamp to the next frame.
        const input = page.locator('input[data-field="front"]').nth(BIG_CARDS / 2);
        await input.focus();
        // Focusing scrolls the middle of the deck into view; let that first render of it finish.
        await page.waitForTimeout(500);
        await page.evaluate(() => {
          const w = window as unknown as { keyLatencies: number[] };
          w.keyLatencies = [];
          window.addEventListener(
            'keydown',
            (event) => {
              requestAnimationFrame(() => setTimeout(() => w.keyLatencies.push(performance.now() - event.timeStamp), 0));
            },
            { capture: true },
          );
        });
        for (const char of 'benchmark') {
          await page.keyboard.press(char);
          await page.waitForTimeout(30);
        }
        await page.waitForTimeout(200);
        const latencies = await page.evaluate(() => (window as unknown as { keyLatencies: number[] }).keyLatencies);
        console.log(`run ${run + 1} keystrokes (ms): ${latencies.map((l) => l.toFixed(0)).join(' ')}`);
        results.keystroke?.push(Math.max(...latencies));
        await expect(input.inputValue()).resolves.toMatch(/benchmark$/);

        // Practice: from the deck list's Practice button to the first card on screen.
        await page.goto(`${base}/flashcards/new`);
        await page.locator('input[data-field="front"]').first().waitFor();
        await clickAndWait(page, 'nav a[href="/flashcards"]', '.deck-card', DECKS + 1);
        results.practice?.push(await clickAndWait(page, 'a[href="/flashcards/big/practice"]', '.flipcard--current .flipcard__text'));
      }
    } finally {
      await browser.close();
    }
  });
});

// "Optimise my schedule" in Chromium against the real binary: a deck with a simulated log of a
// few hundred reviews; the optimiser (FSRS's WebAssembly) is fetched only when asked and runs in a
// Worker with its progress in words; the page shows the fit before and after, keeps the new
// parameters, and the due count follows them; desired retention moves the due count too; Cancel
// leaves the schedule as it was. Axe 0 in light and dark on a phone and a desktop, and nothing on
// the page moves while it loads.
import { describe, expect, it } from 'vitest';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { deckKeys, reviewDueCount } from '../src/flashcards/srs/due';
import { deriveItems, parseReviews, withSettings, type ReviewRecord } from '../src/flashcards/srs/reviewLog';
import { simulatedLog } from '../src/flashcards/srs/simulatedLog';
import type { Deck } from '../src/flashcards/deck';
import { axe, describeViolations } from './support/axe';
import { useBrowser } from './support/browser';
import { useServer } from './support/server';
import { deckRecord, readStorage, type SeedDeck } from './flashcards-support/seed';

const NOW = new Date(2026, 4, 4, 9, 0).getTime();
const LOG = simulatedLog(400, NOW - 3_600_000);
const CARDS = new Set(LOG.map(([key]) => key)).size;
const DECK: SeedDeck = {
  id: 'deck-fsrs',
  name: 'Optimised',
  cards: Array.from({ length: CARDS + 5 }, (_, i) => ({ id: `card-${i}`, front: `word ${i}`, back: `Wort ${i}` })),
};
const REVIEWS = { type: 'reviews', version: 1, newPerDay: 20, seeds: {}, items: deriveItems({}, LOG), log: LOG };
const PAGE = `/flashcards/${DECK.id}/progress`;

const DEVICES: { name: string; options: BrowserContextOptions }[] = [
  { name: 'phone', options: { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true } },
  { name: 'desktop', options: { viewport: { width: 1280, height: 800 } } },
];

/** The deck as the app reads it (for the due counts this test expects). */
const deck = deckRecord(DECK) as unknown as Deck;
const expectedDue = (record: ReviewRecord) => reviewDueCount(deckKeys(deck), record, NOW);

describe('flashcards: Optimise my schedule', () => {
  const url = useServer();
  const b = useBrowser();

  /** Storage seeded before the app's first script, the clock at NOW; records shifts and the Worker's requests. */
  async function open(page: Page) {
    await page.clock.install({ time: new Date(NOW) });
    await page.addInitScript(
      ([entries]) => {
        if (!sessionStorage.getItem('seeded')) {
          sessionStorage.setItem('seeded', '1');
          localStorage.clear();
          for (const [key, value] of entries) localStorage.setItem(key, value);
        }
        const shifts: number[] = [];
        (window as unknown as { __shifts: number[] }).__shifts = shifts;
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries() as unknown as { value: number; hadRecentInput: boolean }[]) if (!entry.hadRecentInput) shifts.push(entry.value);
        }).observe({ type: 'layout-shift', buffered: true });
      },
      [
        [
          ['decks:index', JSON.stringify([DECK.id])],
          [`decks:${DECK.id}`, JSON.stringify(deckRecord(DECK))],
          [`reviews:${DECK.id}`, JSON.stringify(REVIEWS)],
        ],
      ] as const,
    );
    await page.goto(url(PAGE));
    await page.getByRole('heading', { name: 'Your schedule' }).waitFor();
  }

  const dueButton = (page: Page) => page.locator('.toolbar').getByRole('link', { name: /^Review due/ });
  const dueOnPage = async (page: Page) => Number(/\((\d+)\)/.exec((await dueButton(page).textContent()) ?? '')?.[1] ?? '0');

  it('fits the parameters in a Worker with progress, shows before and after, and the due count follows; retention moves it too', async () => {
    const page = b.page;
    page.setDefaultTimeout(60_000);
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    const workers: string[] = [];
    page.on('worker', (worker) => workers.push(worker.url()));
    await open(page);
    await page.waitForTimeout(1500);
    expect(await page.evaluate(() => (window as unknown as { __shifts: number[] }).__shifts.reduce((a, s) => a + s, 0))).toBeLessThan(0.001);
    // Nothing of the optimiser is loaded until asked.
    expect(requests.filter((r) => /\.wasm$|optimiseWorker|fsrs_browser/.test(r))).toEqual([]);
    expect(workers).toEqual([]);

    const stored = parseReviews(REVIEWS);
    if (!stored) throw new Error('the seeded record does not read');
    const before = await dueOnPage(page);
    expect(before).toBe(expectedDue(stored));
    await page.getByText('This deck is scheduled with FSRS’s default parameters.').waitFor();

    // Every progress text shown, in order.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { __progress: string[] }).__progress = seen;
      new MutationObserver(() => {
        const text = document.getElementById('optimise-progress-text')?.textContent;
        if (text && seen[seen.length - 1] !== text) seen.push(text);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await page.getByRole('button', { name: 'Optimise my schedule' }).click();
    await page.getByRole('button', { name: 'Cancel' }).waitFor();
    await page.locator('.optimise__outcome').waitFor();
    const progress = await page.evaluate(() => (window as unknown as { __progress: string[] }).__progress);
    expect(progress.some((text) => text.startsWith('Downloading the optimiser:'))).toBe(true);
    expect(progress.some((text) => /^Fitting the parameters: pass [1-5] of 5$/.test(text))).toBe(true);
    expect(workers.some((w) => w.includes('optimiseWorker'))).toBe(true);
    expect(requests.some((r) => r.endsWith('.wasm'))).toBe(true);

    const outcome = page.locator('.optimise__outcome');
    await expect(outcome.getByText(/^New parameters fitted to \d+ usable reviews predict your history better/).textContent()).resolves.toBeTruthy();
    const cells = await outcome.locator('tbody tr').first().locator('td').allTextContents();
    const [logLossBefore, logLossAfter] = cells.map(Number);
    expect(logLossAfter).toBeLessThan(logLossBefore ?? 0);
    await page.getByText('This deck is scheduled with parameters fitted to its history.').waitFor();

    const saved = parseReviews(await readStorage(page, `reviews:${DECK.id}`));
    expect(saved?.params).toHaveLength(21);
    const fitted = withSettings(stored, saved?.params, undefined);
    expect(saved?.items).toEqual(fitted.items);
    const after = expectedDue(fitted);
    expect(after).not.toBe(before);
    await page.waitForFunction((n) => document.querySelector('.toolbar')?.textContent.includes(`Review due (${n})`), after);

    await axeClean(page, 'optimised');

    // Desired retention: 97 % brings cards back sooner.
    const retention = page.getByLabel('Desired retention (%)');
    await retention.fill('98');
    await page.getByText('A whole number from 70 to 97.').waitFor();
    await expect(page.getByRole('button', { name: 'Save retention' }).isDisabled()).resolves.toBe(true);
    await retention.fill('97');
    await page.getByRole('button', { name: 'Save retention' }).click();
    await page.getByText('Saved: cards come back when you would still remember 97% of them.').waitFor();
    const higher = expectedDue(withSettings(stored, saved?.params, 0.97));
    expect(higher).toBeGreaterThan(after);
    await page.waitForFunction((n) => document.querySelector('.toolbar')?.textContent.includes(`Review due (${n})`), higher);
    await expect(readStorage(page, `reviews:${DECK.id}`)).resolves.toMatchObject({ retention: 0.97, params: saved?.params });

    // Back to the defaults, and a run cancelled leaves the schedule as it was.
    await page.getByRole('button', { name: 'Use the default parameters' }).click();
    await page.getByText('This deck is scheduled with FSRS’s default parameters again.').waitFor();
    await page.getByRole('button', { name: 'Optimise my schedule' }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByText('Optimising was cancelled: the schedule is as it was.').waitFor();
    await expect(readStorage(page, `reviews:${DECK.id}`).then((r) => (r as ReviewRecord).params)).resolves.toBeUndefined();
  }, 120_000);

  async function axeClean(page: Page, name: string) {
    const found: string[] = [];
    for (const device of DEVICES) {
      for (const scheme of ['light', 'dark'] as const) {
        await page.setViewportSize(device.options.viewport ?? { width: 1280, height: 800 });
        await page.emulateMedia({ colorScheme: scheme });
        // The colours' transitions end before axe reads them.
        await page.waitForTimeout(1000);
        found.push(...describeViolations(`${name} ${device.name} ${scheme}`, await axe(page)));
      }
    }
    expect(found).toEqual([]);
  }

  it('keeps the page still while it loads and axe-clean before optimising, on a phone and a desktop', async () => {
    for (const device of DEVICES) {
      const context = await b.browser.newContext({ ...device.options, serviceWorkers: 'block' });
      try {
        const page = await context.newPage();
        await open(page);
        await page.waitForTimeout(1500);
        const shift = await page.evaluate(() => (window as unknown as { __shifts: number[] }).__shifts.reduce((a, s) => a + s, 0));
        expect(shift, device.name).toBeLessThan(0.001);
        for (const scheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme: scheme });
          await page.waitForTimeout(1000);
          expect(describeViolations(`${device.name} ${scheme}`, await axe(page))).toEqual([]);
        }
        // Touch targets of at least 44 px on a phone.
        if (device.name === 'phone') {
          const height = await page.getByRole('button', { name: 'Optimise my schedule' }).evaluate((el) => el.getBoundingClientRect().height);
          expect(height).toBeGreaterThanOrEqual(44);
        }
      } finally {
        await context.close();
      }
    }
  }, 120_000);
});

// One schedule on every synced device (issue 34, item 1), in Chromium against the real binary: a
// browser imports an Anki package with reviewed cards and makes a vault, a second browser (its own
// context, storage, sync engine and clock) joins from the link, both practise "Review due" in the
// imported deck, and once their logs agree both show, at the same minute, the same "N due" and
// "Review due (N)" on the deck list, the same New / Learning / Known on the progress page and the
// same stored item states.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser } from './support/browser';
import { startServer, type RunningServer } from './support/server';
import { readStorage } from './flashcards-support/seed';

const FIXTURES = fileURLToPath(new URL('./fixtures/anki/', import.meta.url));
const anki = JSON.parse(readFileSync(`${FIXTURES}current.apkg.json`, 'utf8')) as { now: number };
const DECK = 'Spanish';

interface StoredReviews {
  items: Record<string, unknown>;
  log: [string, number, string][];
}

async function deckId(page: Page): Promise<string> {
  const ids = ((await readStorage(page, 'decks:index')) ?? []) as string[];
  for (const id of ids) if (((await readStorage(page, `decks:${id}`)) as { name?: string } | null)?.name === DECK) return id;
  throw new Error(`no deck ${DECK}`);
}

const reviewsOf = async (page: Page, id: string) => ((await readStorage(page, `reviews:${id}`)) ?? { items: {}, log: [] }) as StoredReviews;

/** Practises the first `count` cards of "Review due" in the deck, knowing every other one. */
async function practise(page: Page, count: number, knowFirst: boolean) {
  await page.getByRole('link', { name: 'Flashcards' }).first().click();
  await page.getByRole('link', { name: new RegExp(`^Review due \\(\\d+\\) in ${DECK}$`) }).click();
  const current = page.locator('.flipcard--current');
  await current.waitFor();
  for (let i = 0; i < count; i += 1) {
    const before = await page.locator('.practice__progress .count').textContent();
    await page.keyboard.press('Space');
    await page.keyboard.press((i % 2 === 0) === knowFirst ? 'ArrowRight' : 'ArrowLeft');
    await page.waitForFunction((text) => document.querySelector('.practice__progress .count')?.textContent !== text, before);
  }
}

/** What the deck list and the progress page show of the deck. */
async function shown(page: Page, id: string) {
  await page.goto(new URL('/flashcards', page.url()).href);
  const item = page.getByRole('listitem', { name: DECK, exact: true });
  await item.waitFor();
  const due = await item.locator('.due-badge').textContent();
  const review = await item.locator('[aria-label^="Review due ("]').getAttribute('aria-label');
  await page.goto(new URL(`/flashcards/${id}/progress`, page.url()).href);
  await page.getByRole('heading', { name: 'Progress' }).waitFor();
  const stat = (label: string) =>
    page
      .locator('.progress-stat', { has: page.getByText(label, { exact: true }) })
      .locator('dd')
      .first()
      .textContent();
  return {
    due,
    review,
    new: await stat('New'),
    learning: await stat('Learning'),
    known: await stat('Known'),
    next: await page.locator('.progress-page .hint').first().textContent(),
  };
}

describe('sync: an imported Anki deck practised on two browsers', () => {
  let server: RunningServer;
  let browser: Browser;
  let ca: BrowserContext;
  let cb: BrowserContext;
  let a: Page;
  let b: Page;

  beforeAll(async () => {
    server = await startServer();
    browser = await launchBrowser();
    ca = await browser.newContext();
    cb = await browser.newContext();
    // Each browser has its own clock, both at the moment the package was made; B's a little behind.
    await ca.clock.install({ time: anki.now });
    await cb.clock.install({ time: anki.now - 90_000 });
    a = await ca.newPage();
    b = await cb.newPage();
    for (const page of [a, b]) page.setDefaultTimeout(20_000);
  });
  afterAll(async () => {
    await browser.close();
    await server.stop();
  });

  it('shows the same due counts, states and progress on both once their logs agree', async () => {
    await a.goto(`${server.url}/flashcards`);
    await a.getByRole('button', { name: 'Import', exact: true }).click();
    const dialog = a.getByRole('dialog', { name: 'Import decks' });
    await dialog
      .getByLabel('Or choose a file')
      .setInputFiles({ name: 'current.apkg', mimeType: 'application/octet-stream', buffer: readFileSync(`${FIXTURES}current.apkg`) });
    await dialog.getByText('decks to import:').waitFor();
    await dialog.getByRole('button', { name: 'Import', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' });
    const id = await deckId(a);

    await a.getByRole('link', { name: 'Sync', exact: true }).first().click();
    await a.getByRole('button', { name: 'Sync this browser' }).click();
    const link = await a.getByRole('textbox', { name: 'Sync link' }).inputValue();
    await b.goto(`${server.url}/flashcards`);
    await b.goto(link);
    await b.getByRole('button', { name: 'Join and sync' }).click();
    await b.getByText(/Last synced: /).waitFor();
    await b.getByRole('link', { name: 'Back to decks' }).click();
    await b.getByRole('heading', { name: DECK }).waitFor();

    await practise(a, 5, true);
    await practise(b, 5, false);

    // Both logs hold all ten marks (bounded wait: each browser syncs after its marks and polls).
    const started = Date.now();
    for (;;) {
      const [ra, rb] = [await reviewsOf(a, id), await reviewsOf(b, id)];
      if (JSON.stringify(ra.log) === JSON.stringify(rb.log) && ra.log.length > 0) break;
      if (Date.now() - started > 30_000) throw new Error(`the logs did not agree: ${ra.log.length} and ${rb.log.length} marks`);
      await a.waitForTimeout(200);
    }

    // The same minute on both.
    const at = anki.now + 60 * 60 * 1000;
    await ca.clock.setFixedTime(at);
    await cb.clock.setFixedTime(at);
    const onA = await shown(a, id);
    const onB = await shown(b, id);
    expect(onB).toEqual(onA);
    expect(Number(onA.learning) + Number(onA.known)).toBeGreaterThan(0);
    const [ra, rb] = [await reviewsOf(a, id), await reviewsOf(b, id)];
    expect(rb.items).toEqual(ra.items);
  });
});

// Shares that follow the deck, in Chromium against the real binary with two browser contexts: the
// sharer shares a deck; the learner adds it and reviews a card; the sharer fixes a card's text and
// adds a card, and the shared copy follows the save by itself ("Shared copy updated."); the
// learner's deck list offers the update (without moving anything when the offer arrives), the
// review lists what changes, and taking it gives the fixed text and the new card with the card
// ids, and so the review progress, kept (the review shows each card's front and back in cells of
// their own, a changed side's old text struck out before the new). The changed screens have no axe violations in light and
// dark, on a phone and a desktop.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { axe, describeViolations } from './support/axe';
import { launchBrowser } from './support/browser';
import { startServer, type RunningServer } from './support/server';
import { readStorage, seed } from './flashcards-support/seed';

const NAME = 'Kestrel nouns';
const DEVICES = [
  { name: 'phone', options: { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true } },
  { name: 'desktop', options: { viewport: { width: 1350, height: 940 } } },
] as const;
const SCHEMES = ['light', 'dark'] as const;
/** Every API answer to the learner is held back, so an offer that moved things would be seen moving. */
const API_DELAY_MS = 400;

interface StoredDeck {
  id: string;
  name: string;
  cards: { id: string; front: string; back: string }[];
}

async function copyIn(page: Page): Promise<StoredDeck> {
  const [id] = ((await readStorage(page, 'decks:index')) ?? []) as string[];
  const deck = (await readStorage(page, `decks:${id ?? ''}`)) as StoredDeck | null;
  if (!deck) throw new Error('no copy');
  return deck;
}

/** Records every layout shift from the first frame (as layout-shift.e2e.ts does). */
const watchShifts = () => {
  const shifts: number[] = [];
  (window as unknown as { __shifts: number[] }).__shifts = shifts;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as unknown as { value: number; hadRecentInput: boolean }[]) {
      if (!entry.hadRecentInput) shifts.push(entry.value);
    }
  }).observe({ type: 'layout-shift', buffered: true });
};

describe('a shared deck that follows the sharer’s saves', () => {
  let server: RunningServer;
  let browser: Browser;
  let sharerContext: BrowserContext;
  let learnerContext: BrowserContext;
  let a: Page;
  let b: Page;
  let copyId = '';

  beforeAll(async () => {
    server = await startServer();
    browser = await launchBrowser();
    sharerContext = await browser.newContext();
    learnerContext = await browser.newContext();
    await learnerContext.addInitScript(watchShifts);
    await learnerContext.route(/\/api\//, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, API_DELAY_MS));
      await route.continue();
    });
    a = await sharerContext.newPage();
    b = await learnerContext.newPage();
    for (const page of [a, b]) page.setDefaultTimeout(15_000);
  });
  afterAll(async () => {
    await browser.close();
    await server.stop();
  });

  it('the learner adds the shared deck and reviews a card', async () => {
    await seed(a, server.url, [
      {
        id: 'deck-k',
        name: NAME,
        cards: [
          { front: 'tabel', back: 'la table' },
          { front: 'chair', back: 'la chaise' },
        ],
      },
    ]);
    await a.goto(`${server.url}/flashcards/deck-k/edit`);
    await a.getByRole('button', { name: 'Share' }).click();
    await a.getByRole('button', { name: 'Create share link' }).click();
    const link = await a.getByRole('textbox', { name: 'Share link' }).inputValue();
    await a.getByText('Shared: the link shows this deck as saved.').waitFor();
    await a.keyboard.press('Escape');

    await b.goto(link);
    await b.getByRole('button', { name: 'Add to my decks' }).click();
    await b.getByText(`Added “${NAME}” to your decks.`).waitFor();
    const copy = await copyIn(b);
    copyId = copy.id;
    expect(copyId).not.toBe('deck-k');
    // The copy keeps the shared deck's card ids: that is what lets progress survive an update.
    expect(copy.cards.map((card) => card.id)).toEqual(['deck-k-card-0', 'deck-k-card-1']);

    await b.goto(`${server.url}/flashcards`);
    await b.getByText('From a shared deck: its updates are offered here.').waitFor();
    await b.getByRole('link', { name: `Practice ${NAME}` }).click();
    await b.locator('.practice__progress').waitFor();
    await b.keyboard.press('Space');
    await b.keyboard.press('ArrowRight');
    await b.waitForFunction((key) => (JSON.parse(localStorage.getItem(key) ?? '{"log":[]}') as { log: unknown[] }).log.length === 1, `reviews:${copyId}`);
  });

  it('the sharer fixes a card and adds one; the shared copy follows the save', async () => {
    await a.getByRole('textbox', { name: 'Card 1 front', exact: true }).fill('table');
    await a.getByRole('button', { name: 'Add Card' }).click();
    await a.getByRole('textbox', { name: 'Card 3 front', exact: true }).fill('lamp');
    await a.getByRole('textbox', { name: 'Card 3 back', exact: true }).fill('la lampe');
    await a.getByRole('button', { name: 'Save Deck' }).click();
    await a.getByText('Shared copy updated.').waitFor();
  });

  it('the learner is offered the update without anything moving, and the changed screens pass axe', async () => {
    await b.goto(`${server.url}/flashcards`);
    await b.getByText('An update to this shared deck is available.').waitFor();
    await b.waitForTimeout(1000);
    const shift = await b.evaluate(() => (window as unknown as { __shifts: number[] }).__shifts.reduce((sum, value) => sum + value, 0));
    expect(shift).toBeLessThan(0.001);

    const found: string[] = [];
    const learnerState = await learnerContext.storageState();
    const sharerState = await sharerContext.storageState();
    for (const device of DEVICES) {
      for (const scheme of SCHEMES) {
        const where = `${device.name}, ${scheme}`;
        const learner = await browser.newContext({ ...device.options, colorScheme: scheme, storageState: learnerState });
        const sharer = await browser.newContext({ ...device.options, colorScheme: scheme, storageState: sharerState });
        try {
          const page = await learner.newPage();
          await page.goto(`${server.url}/flashcards`);
          await page.getByText('An update to this shared deck is available.').waitFor();
          found.push(...describeViolations(`deck list (${where})`, await axe(page)));
          await page.goto(`${server.url}/flashcards/${copyId}/edit`);
          await page.getByText('An update to this shared deck is available.').waitFor();
          found.push(...describeViolations(`editor of the copy (${where})`, await axe(page)));
          await page.getByRole('link', { name: 'Review the update' }).click();
          await page.getByRole('button', { name: 'Take the update' }).waitFor();
          found.push(...describeViolations(`update review (${where})`, await axe(page)));

          const own = await sharer.newPage();
          await own.goto(`${server.url}/flashcards/deck-k/edit`);
          await own.getByText('Shared: the link shows this deck as saved.').waitFor();
          found.push(...describeViolations(`sharer's editor (${where})`, await axe(own)));
          await own.getByRole('button', { name: 'Share' }).click();
          await own.getByRole('textbox', { name: 'Share link' }).waitFor();
          found.push(...describeViolations(`share dialog (${where})`, await axe(own)));
        } finally {
          await learner.close();
          await sharer.close();
        }
      }
    }
    expect(found, found.join('\n')).toEqual([]);
  }, 240_000);

  it('the learner reviews and takes the update: fixed text, the new card, progress kept', async () => {
    const before = await readStorage(b, `reviews:${copyId}`);
    await b.getByRole('link', { name: 'Review the update' }).click();
    await b.getByRole('heading', { name: `Update “${NAME}”` }).waitFor();
    await b.getByRole('region', { name: '1 card added' }).getByText('lamp', { exact: true }).waitFor();
    // Front and back apart, the changed side's old text struck out before its new one.
    const changed = b.getByRole('region', { name: '1 card changed' });
    await expect(changed.getByRole('cell').allTextContents()).resolves.toEqual(['was: tabelbecomes: table', 'la table']);
    await expect(changed.locator('del').textContent()).resolves.toBe('was: tabel');
    await expect(changed.locator('ins').textContent()).resolves.toBe('becomes: table');
    await b.getByRole('button', { name: 'Take the update' }).click();
    await b.getByText(`Updated “${NAME}”: 1 card added, 1 card changed. Your progress is kept.`).waitFor();

    const copy = await copyIn(b);
    expect(copy.id).toBe(copyId);
    expect(copy.cards.map((card) => [card.front, card.back])).toEqual([
      ['table', 'la table'],
      ['chair', 'la chaise'],
      ['lamp', 'la lampe'],
    ]);
    expect(copy.cards.slice(0, 2).map((card) => card.id)).toEqual(['deck-k-card-0', 'deck-k-card-1']);
    // The review mark and the scheduling state are the same as before the update.
    expect(await readStorage(b, `reviews:${copyId}`)).toEqual(before);
    expect(Object.keys((before as { items: Record<string, unknown> }).items)).toHaveLength(1);

    await b.getByRole('link', { name: 'Your decks' }).click();
    await b.getByText('From a shared deck: its updates are offered here.').waitFor();
    await b
      .getByRole('link', { name: `Review due (1) in ${NAME}` })
      .or(b.getByRole('link', { name: `Practice ${NAME}` }))
      .first()
      .waitFor();
  });
});

// Tags, cloze cards and leeches in Chromium: tags typed in the editor and a practice limited to
// one tag from the deck list and the progress page; a cloze card practised (the blank, the flip
// that reveals it, a typed answer checked against the hidden text) with the editor's preview; a
// leech shown on the progress page, suspended (left out of the due counts and practice) and
// brought back. The screens these add to, with that data, pass axe in light and dark on a phone
// and a desktop, and nothing on them moves while they load.
import { beforeEach, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { axe, describeViolations } from './support/axe';
import { useBrowser } from './support/browser';
import { useServer } from './support/server';
import { deckRecord, FRENCH, readStorage, seed, type SeedDeck } from './flashcards-support/seed';

const DAY = 86_400_000;
const NOW = Date.parse('2026-03-02T08:00:00Z');

const CLOZE: SeedDeck = {
  id: 'deck-cloze',
  name: 'Cloze deck',
  cards: [
    { front: 'The {{c1::cat}} sleeps on the {{c2::mat::floor}}.', back: '' },
    { front: 'house', back: 'maison' },
  ],
};

/** A stored schedule for `key`: in review, due in ten days, forgotten `lapses` times. */
const reviewed = (lapses: number): number[] => [NOW + 10 * DAY, 5, 8, 10, 0, 30, lapses, 2, NOW - DAY];

/** FRENCH's first card (cat) forgotten 8 times: a leech. */
const LEECH_REVIEWS = JSON.stringify({
  type: 'reviews',
  version: 1,
  newPerDay: 20,
  items: { 'deck-french-card-0': reviewed(8), 'deck-french-card-1': reviewed(1) },
  log: [],
});

const TAGGED: SeedDeck = {
  ...FRENCH,
  cards: FRENCH.cards.map((card, index) => ({ ...card, tags: index === 2 ? ['numbers'] : ['animals', 'nouns'] })),
};

describe('flashcards: tags, cloze cards and leeches', () => {
  const url = useServer();
  const b = useBrowser();
  beforeEach(() => {
    b.page.setDefaultTimeout(10_000);
  });

  const card = (page: Page) => page.locator('.flipcard--current');
  const frontText = async (page: Page) => (await card(page).locator('.flipcard__face--front .flipcard__text').textContent()) ?? '';
  const backText = async (page: Page) => (await card(page).locator('.flipcard__face--back .flipcard__text').textContent()) ?? '';
  const progressText = (page: Page) => page.locator('.practice__progress .count').textContent();
  const deckCard = (page: Page, name: string) => page.getByRole('listitem', { name });

  it('edits a card’s tags and practises one tag from the deck list and the progress page', async () => {
    const page = b.page;
    await seed(page, url(), [FRENCH]);
    await page.goto(url(`/flashcards/${FRENCH.id}/edit`));
    // Typed with spaces between tags, one letter at a time as on a phone keyboard.
    await page.getByLabel('Card 1 tags, separated by spaces').pressSequentially('animals nouns');
    await page.getByLabel('Card 2 tags, separated by spaces').fill('Animals');
    await page.getByLabel('Card 3 tags, separated by spaces').fill('numbers');
    await expect(page.getByLabel('Card 1 tags, separated by spaces').inputValue()).resolves.toBe('animals nouns');
    await page.getByRole('button', { name: 'Save Deck' }).click();
    await page.waitForFunction(() => (localStorage.getItem('decks:deck-french') ?? '').includes('numbers'));
    const stored = (await readStorage(page, `decks:${FRENCH.id}`)) as { cards: { tags?: string[] }[] };
    expect(stored.cards.map((c) => c.tags)).toEqual([['animals', 'nouns'], ['Animals'], ['numbers']]);

    await page.goto(url('/flashcards'));
    const links = deckCard(page, 'French basics').getByRole('list', { name: 'Practice French basics by tag' }).getByRole('link');
    await links.first().waitFor();
    await expect(links.allTextContents()).resolves.toEqual(['animals', 'nouns', 'numbers']);
    await deckCard(page, 'French basics').getByRole('link', { name: 'Practice animals in French basics' }).click();
    await page.waitForURL(/\/flashcards\/deck-french\/practice\?tag=animals$/);
    await page.locator('.practice__title').getByText('Tag: animals').waitFor();
    await card(page).waitFor();
    await expect(progressText(page)).resolves.toBe('0 / 2');
    const seen = new Set<string>();
    for (let i = 0; i < 2; i += 1) {
      seen.add(await frontText(page));
      await page.keyboard.press('Space');
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction((n) => document.querySelector('.practice__progress .count')?.textContent === `${n} / 2`, i + 1);
    }
    expect([...seen].sort()).toEqual(['cat', 'dog']);
    await page.getByRole('heading', { name: 'Practice complete' }).waitFor();
    // Only the tag's cards were scheduled.
    const reviews = (await readStorage(page, `reviews:${FRENCH.id}`)) as { log: [string][] };
    expect(reviews.log.map(([key]) => key).sort()).toEqual(['deck-french-card-0', 'deck-french-card-1']);

    await page.goto(url(`/flashcards/${FRENCH.id}/progress`));
    const byTag = page.getByRole('region', { name: 'Practice by tag' });
    // One spelling across the app: "Practice" (the spec's), never "practise".
    await byTag.waitFor();
    expect(await page.locator('main').innerText()).not.toMatch(/practis/i);
    await byTag.getByRole('link', { name: 'Practice numbers (1 card)' }).click();
    await page.waitForURL(/practice\?tag=numbers$/);
    await card(page).waitFor();
    await expect(frontText(page)).resolves.toBe('one');
    await expect(progressText(page)).resolves.toBe('0 / 1');
  });

  it('practises a cloze card: one card per number, a blank, the flip reveals it, a typed answer is checked', async () => {
    const page = b.page;
    await seed(page, url(), [CLOZE]);
    await page.goto(url(`/flashcards/${CLOZE.id}/edit`));
    const preview = page.getByRole('list', { name: 'Cloze cards' });
    await preview.getByRole('listitem').first().waitFor();
    await expect(preview.getByRole('listitem').allTextContents()).resolves.toEqual(['c1 The [...] sleeps on the mat.', 'c2 The cat sleeps on the [floor].']);
    // The preview follows the front as it is typed.
    await page.getByLabel('Card 1 front').fill('The {{c1::cat}} sleeps on the {{c2::mat::floor}}. {{c3::Zzz}}');
    await page.waitForFunction(() => document.querySelectorAll('.card-row__cloze li').length === 3);
    await page.getByLabel('Card 1 front').fill('The {{c1::cat}} sleeps on the {{c2::mat::floor}}.');

    await page.goto(url(`/flashcards/${CLOZE.id}/practice`));
    await card(page).waitFor();
    await expect(progressText(page)).resolves.toBe('0 / 3');
    await page.getByRole('switch', { name: 'Type the answer' }).check();
    const expected: Record<string, { answer: string; back: string }> = {
      'The [...] sleeps on the mat.': { answer: 'cat', back: 'The cat sleeps on the mat.' },
      'The cat sleeps on the [floor].': { answer: 'mat', back: 'The cat sleeps on the mat.' },
      house: { answer: 'maison', back: 'maison' },
    };
    const asked: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const front = await frontText(page);
      asked.push(front);
      const want = expected[front];
      if (!want) throw new Error(`unexpected card ${front}`);
      if (front.includes('[')) await expect(card(page).locator('.cloze__blank').textContent()).resolves.toMatch(/^\[(\.\.\.|floor)\]$/);
      await page.getByLabel(/^Your answer/).fill(want.answer);
      await page.getByRole('button', { name: 'Check' }).click();
      await page.getByText('Correct.').waitFor();
      // Checking flips the card: the hidden text is revealed in place.
      await page.locator('.flipcard--current.is-flipped').waitFor();
      await expect(backText(page)).resolves.toBe(want.back);
      if (front.includes('[')) await expect(card(page).locator('.cloze__revealed').textContent()).resolves.toBe(want.answer);
      await page.getByRole('button', { name: 'Knew it' }).click();
      await page.waitForFunction((n) => document.querySelector('.practice__progress .count')?.textContent === `${n} / 3`, i + 1);
    }
    expect(asked.sort()).toEqual(Object.keys(expected).sort());
    const reviews = (await readStorage(page, `reviews:${CLOZE.id}`)) as { items: Record<string, unknown> };
    // Each cloze number has its own schedule; the plain card keeps its id.
    expect(Object.keys(reviews.items).sort()).toEqual(['deck-cloze-card-0', 'deck-cloze-card-0:c2', 'deck-cloze-card-1']);
  });

  it('shows a leech on the progress page, suspends it out of practice and the due counts, and brings it back', async () => {
    const page = b.page;
    await page.clock.install({ time: new Date(NOW) });
    await seed(page, url(), [FRENCH], { [`reviews:${FRENCH.id}`]: LEECH_REVIEWS });
    await page.goto(url('/flashcards'));
    // cat and dog are scheduled in ten days; one is new.
    await expect(deckCard(page, 'French basics').locator('.due-badge').textContent()).resolves.toBe('1 due');

    await page.goto(url(`/flashcards/${FRENCH.id}/progress`));
    const trouble = page.getByRole('region', { name: 'Leeches and suspended cards' });
    const item = trouble.getByRole('listitem');
    await item.first().waitFor();
    await expect(item.count()).resolves.toBe(1);
    await expect(item.textContent()).resolves.toContain('cat');
    await expect(item.locator('.progress-trouble__leech').textContent()).resolves.toBe('Leech');
    await expect(item.textContent()).resolves.toContain('Forgotten 8 times');
    await trouble.getByRole('button', { name: 'Suspend cat' }).click();
    await trouble.getByRole('button', { name: 'Unsuspend cat' }).waitFor();
    await item.getByText('Suspended', { exact: true }).waitFor();
    const stored = (await readStorage(page, `decks:${FRENCH.id}`)) as { cards: { suspended?: boolean }[] };
    expect(stored.cards.map((c) => c.suspended === true)).toEqual([true, false, false]);

    await page.goto(url(`/flashcards/${FRENCH.id}/practice`));
    await card(page).waitFor();
    await expect(progressText(page)).resolves.toBe('0 / 2');
    const fronts = new Set<string>();
    for (let i = 0; i < 2; i += 1) {
      fronts.add(await frontText(page));
      await page.keyboard.press('Space');
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction((n) => document.querySelector('.practice__progress .count')?.textContent === `${n} / 2`, i + 1);
    }
    expect(fronts.has('cat')).toBe(false);

    await page.goto(url(`/flashcards/${FRENCH.id}/progress`));
    await page.getByRole('button', { name: 'Unsuspend cat' }).click();
    await page.getByRole('button', { name: 'Suspend cat' }).waitFor();
    const after = (await readStorage(page, `decks:${FRENCH.id}`)) as { cards: Record<string, unknown>[] };
    // Unsuspended, the card is stored as it was before.
    expect(after.cards[0]).toEqual((deckRecord(FRENCH) as { cards: Record<string, unknown>[] }).cards[0]);
  });

  const DEVICES = [
    { name: 'phone', options: { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true } },
    { name: 'desktop', options: { viewport: { width: 1280, height: 800 } } },
  ] as const;
  const SCHEMES = ['light', 'dark'] as const;

  /** Storage for the sweep: a tagged deck with a leech (one suspended card) and the cloze deck. */
  const sweepEntries = (): [string, string][] => {
    const tagged = deckRecord(TAGGED) as { cards: Record<string, unknown>[] };
    const withSuspended = { ...tagged, cards: tagged.cards.map((c, i) => (i === 1 ? { ...c, suspended: true } : c)) };
    return [
      ['decks:index', JSON.stringify([TAGGED.id, CLOZE.id])],
      [`decks:${TAGGED.id}`, JSON.stringify(withSuspended)],
      [`decks:${CLOZE.id}`, JSON.stringify(deckRecord(CLOZE))],
      [`reviews:${TAGGED.id}`, LEECH_REVIEWS],
    ];
  };

  async function openScreens(page: Page, visit: (name: string) => Promise<void>) {
    const screens: [string, string, string][] = [
      ['deck list with tags', '/flashcards', '.deck-card__tags'],
      ['editor with tags and a cloze preview', `/flashcards/${CLOZE.id}/edit`, '.card-row__cloze'],
      ['editor of a tagged deck', `/flashcards/${TAGGED.id}/edit`, 'h1'],
      ['cloze practice', `/flashcards/${CLOZE.id}/practice`, '.cloze__blank, .flipcard__text'],
      ['practice limited to a tag', `/flashcards/${TAGGED.id}/practice?tag=animals`, '.flipcard--current'],
      ['progress with tags and a leech', `/flashcards/${TAGGED.id}/progress`, '.progress-trouble__item'],
      ['practice of a tag with no cards', `/flashcards/${TAGGED.id}/practice?tag=none`, 'h2'],
    ];
    for (const [name, path, ready] of screens) {
      await page.goto(url(path));
      await page.locator(ready).first().waitFor({ timeout: 15_000 });
      await visit(name);
    }
  }

  for (const device of DEVICES) {
    for (const scheme of SCHEMES) {
      it(`passes axe on these screens on a ${device.name}, ${scheme}`, async () => {
        const context: BrowserContext = await b.browser.newContext({ ...device.options, colorScheme: scheme });
        const found: string[] = [];
        try {
          await context.addInitScript((entries: [string, string][]) => {
            if (sessionStorage.getItem('seeded')) return;
            sessionStorage.setItem('seeded', '1');
            localStorage.clear();
            for (const [key, value] of entries) localStorage.setItem(key, value);
          }, sweepEntries());
          const page = await context.newPage();
          await openScreens(page, async (name) => {
            await page.waitForTimeout(300);
            found.push(...describeViolations(name, await axe(page)));
            if (name === 'cloze practice') {
              // The revealed face too.
              await page.keyboard.press('Space');
              await page.waitForTimeout(700);
              found.push(...describeViolations(`${name} (flipped)`, await axe(page)));
            }
            if (process.env.SHOTS)
              await page.screenshot({ path: `${process.env.SHOTS}/${device.name}-${scheme}-${name.replace(/\W+/g, '-')}.png`, fullPage: true });
          });
        } finally {
          await context.close();
        }
        expect(found, found.join('\n')).toEqual([]);
      });
    }

    it(`keeps these screens still while they load on a ${device.name}`, async () => {
      const context: BrowserContext = await b.browser.newContext({ ...device.options, serviceWorkers: 'block' });
      const found: string[] = [];
      try {
        await context.addInitScript((entries: [string, string][]) => {
          if (!sessionStorage.getItem('seeded')) {
            sessionStorage.setItem('seeded', '1');
            localStorage.clear();
            for (const [key, value] of entries) localStorage.setItem(key, value);
          }
          const shifts: { value: number; sources: string[] }[] = [];
          (window as unknown as { __shifts: typeof shifts }).__shifts = shifts;
          new PerformanceObserver((list) => {
            for (const entry of list.getEntries() as unknown as { value: number; hadRecentInput: boolean; sources: { node?: Node | null }[] }[]) {
              if (entry.hadRecentInput) continue;
              shifts.push({
                value: entry.value,
                sources: entry.sources.map((s) => (s.node instanceof Element ? `${s.node.tagName.toLowerCase()}.${[...s.node.classList].join('.')}` : '?')),
              });
            }
          }).observe({ type: 'layout-shift', buffered: true });
        }, sweepEntries());
        const page = await context.newPage();
        await openScreens(page, async (name) => {
          await page.waitForTimeout(1500);
          const shifts = await page.evaluate(() => (window as unknown as { __shifts: { value: number; sources: string[] }[] }).__shifts);
          const total = shifts.reduce((sum, s) => sum + s.value, 0);
          if (total >= 0.001) found.push(`${name}: ${total.toFixed(4)} (${shifts.map((s) => `${s.value.toFixed(4)} ${s.sources.join(', ')}`).join('; ')})`);
        });
      } finally {
        await context.close();
      }
      expect(found, found.join('\n')).toEqual([]);
    });
  }
});

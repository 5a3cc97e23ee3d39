// Spaced repetition in Chromium against the real binary: due counts on the deck list across a
// "Review due" session (and undo), the clock moved on with Playwright's fake clock; an unfinished
// session restored after a reload, and Start over; typing practice with its comparison, diff and
// suggested grade; and the review log through a JSON backup and back.
import { readFile } from 'node:fs/promises';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowser } from './support/browser';
import { useServer } from './support/server';
import { fillStorage, FRENCH, readStorage, seed, type SeedDeck } from './flashcards-support/seed';

const ANSWERS: Record<string, string> = { cat: 'chat', dog: 'chien', one: 'un', school: 'école' };

interface StoredReviews {
  type: string;
  version: number;
  newPerDay: number;
  items: Record<string, unknown>;
  log: [string, number, string][];
}

describe('flashcards: spaced repetition', () => {
  const url = useServer();
  const b = useBrowser();
  beforeEach(() => {
    b.page.setDefaultTimeout(10_000);
  });

  const card = (page: Page) => page.locator('.flipcard--current');
  const prompt = async (page: Page) => (await card(page).locator('.flipcard__face--front .flipcard__text').textContent()) ?? '';
  const waitForProgress = (page: Page, text: string) =>
    page.waitForFunction((t) => document.querySelector('.practice__progress .count')?.textContent === t, text);
  const stat = (page: Page, label: string) =>
    page
      .locator('.completion__stat', { has: page.getByText(label, { exact: true }) })
      .locator('dd')
      .textContent();
  const deckCard = (page: Page, name: string) => page.getByRole('listitem', { name });
  const dueText = (page: Page, name: string) => deckCard(page, name).locator('.due-badge').textContent();

  /** Flips the current card with Space and marks it with an arrow key, then waits for the next. */
  async function mark(page: Page, known: boolean, next: string) {
    await page.keyboard.press('Space');
    await page.keyboard.press(known ? 'ArrowRight' : 'ArrowLeft');
    await waitForProgress(page, next);
  }

  async function openList(page: Page) {
    await page.goto(url('/flashcards'));
    await page.getByRole('heading', { name: 'Your Decks' }).waitFor();
  }

  it('shows N due per deck, practises only the due cards, and counts them again when their time comes', async () => {
    const page = b.page;
    await page.clock.install({ time: new Date('2026-03-02T08:00:00Z') });
    await seed(page, url(), [FRENCH, { ...FRENCH, id: 'deck-other', name: 'Other deck', cards: [{ front: 'house', back: 'maison' }] }]);
    await openList(page);
    await expect(dueText(page, 'French basics')).resolves.toBe('3 due');
    await expect(dueText(page, 'Other deck')).resolves.toBe('1 due');

    // Undo in the spec's Practice takes a mark back from the schedule too.
    await deckCard(page, 'French basics').getByRole('link', { name: 'Practice French basics' }).click();
    await card(page).waitFor();
    await mark(page, true, '1 / 3');
    await expect(readStorage(page, 'reviews:deck-french')).resolves.toMatchObject({
      type: 'reviews',
      version: 1,
      log: [[expect.any(String), expect.any(Number), 'good']],
    });
    await page.keyboard.press('Backspace');
    await waitForProgress(page, '0 / 3');
    await expect(readStorage(page, 'reviews:deck-french').then((r) => (r as StoredReviews).log)).resolves.toEqual([]);
    await page.getByRole('link', { name: 'All decks' }).click();
    await expect(dueText(page, 'French basics')).resolves.toBe('3 due');

    await deckCard(page, 'French basics').getByRole('link', { name: 'Review due (3) in French basics' }).click();
    await page.locator('.practice__title').getByText('Review due').waitFor();
    await card(page).waitFor();
    await mark(page, true, '1 / 3');
    await mark(page, false, '2 / 3');
    await mark(page, true, '3 / 3');
    await page.getByRole('heading', { name: 'Practice complete' }).waitFor();
    // The completion screen leads with the unknown card and says when the deck is next due.
    await expect(page.locator('.completion__primary > *').first().textContent()).resolves.toBe('Practice unknown again');
    await page.getByText('This deck is next due in 1 minute.').waitFor();

    const reviews = (await readStorage(page, 'reviews:deck-french')) as StoredReviews;
    expect(reviews.log.map(([, , grade]) => grade)).toEqual(['good', 'again', 'good']);
    expect(Object.keys(reviews.items).sort()).toEqual(['deck-french-card-0', 'deck-french-card-1', 'deck-french-card-2']);

    await page.getByRole('link', { name: 'Back to decks' }).click();
    await expect(dueText(page, 'French basics')).resolves.toBe('0 due');
    await expect(deckCard(page, 'French basics').getByRole('button', { name: 'Review due (0) in French basics' }).isDisabled()).resolves.toBe(true);
    await expect(dueText(page, 'Other deck')).resolves.toBe('1 due');

    // Two minutes on, the unknown card is due again; after eleven, the known ones too.
    await page.clock.fastForward('02:00');
    await openList(page);
    await expect(dueText(page, 'French basics')).resolves.toBe('1 due');
    await page.clock.fastForward('10:00');
    await openList(page);
    await expect(dueText(page, 'French basics')).resolves.toBe('3 due');
  });

  it('keeps the daily cap on new cards, changeable per deck on its progress page', async () => {
    const page = b.page;
    const many: SeedDeck = { id: 'deck-many', name: 'Many', cards: Array.from({ length: 30 }, (_, i) => ({ front: `w${i}`, back: `m${i}` })) };
    await seed(page, url(), [many]);
    await openList(page);
    await expect(dueText(page, 'Many')).resolves.toBe('30 due');
    await deckCard(page, 'Many').getByRole('link', { name: 'Review due (20) in Many' }).waitFor();
    await deckCard(page, 'Many').getByRole('link', { name: 'Progress of Many' }).click();
    await page.getByRole('heading', { name: 'Progress' }).waitFor();
    // Anything but a whole number from 0 to 9999 is refused beside the box, and Save waits.
    const cap = page.getByLabel('New cards per day');
    for (const bad of ['', '-1', '1.5', '10000']) {
      await cap.fill(bad);
      await page.getByText('A whole number from 0 to 9999.').waitFor();
      await expect(cap.getAttribute('aria-invalid')).resolves.toBe('true');
      await expect(page.getByRole('button', { name: 'Save', exact: true }).isDisabled()).resolves.toBe(true);
    }
    await cap.fill('5');
    await expect(cap.getAttribute('aria-invalid')).resolves.toBeNull();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved: up to 5 new cards a day.').waitFor();
    await page.getByRole('link', { name: 'Review due (5)' }).click();
    await waitForProgress(page, '0 / 5');

    // With a limit of 0 nothing new is due; Review due says so and offers the full practice.
    await page.goto(url('/flashcards/deck-many/progress'));
    await page.getByLabel('New cards per day').fill('0');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.goto(url('/flashcards/deck-many/review'));
    await page.getByRole('heading', { name: 'Nothing is due' }).waitFor();
    await page.getByRole('link', { name: 'Practice all cards' }).waitFor();
  });

  it('restores an unfinished session after a reload, and starts over on request', async () => {
    const page = b.page;
    await seed(page, url(), [FRENCH]);
    await page.goto(url(`/flashcards/${FRENCH.id}/practice`));
    await card(page).waitFor();
    const seen = [await prompt(page)];
    await mark(page, true, '1 / 3');
    seen.push(await prompt(page));
    await mark(page, false, '2 / 3');
    const third = await prompt(page);

    await page.reload();
    await card(page).waitFor();
    await page.getByText('Continuing your unfinished session: 2 of 3 cards marked.').waitFor();
    await expect(page.locator('.practice__progress .count').textContent()).resolves.toBe('2 / 3');
    await expect(prompt(page)).resolves.toBe(third);
    await expect(card(page).evaluate((el) => el.classList.contains('is-flipped'))).resolves.toBe(false);
    // Undo still works on a mark made before the reload.
    await page.keyboard.press('Backspace');
    await waitForProgress(page, '1 / 3');
    await expect(prompt(page)).resolves.toBe(seen[1]);
    await page.keyboard.press('ArrowLeft');
    await waitForProgress(page, '2 / 3');
    await mark(page, true, '3 / 3');
    await page.getByRole('heading', { name: 'Practice complete' }).waitFor();
    await expect(stat(page, 'Knew it')).resolves.toBe('2');
    await expect(stat(page, 'Didn’t know')).resolves.toBe('1');
    await expect(readStorage(page, `practice:session:${FRENCH.id}`)).resolves.toBeNull();

    // A finished session is not restored; a new one is, until Start over.
    await page.reload();
    await card(page).waitFor();
    await expect(page.getByText('Continuing your unfinished session').count()).resolves.toBe(0);
    await mark(page, true, '1 / 3');
    await page.reload();
    await page.getByText('Continuing your unfinished session: 1 of 3 cards marked.').waitFor();
    await page.getByRole('button', { name: 'Start over' }).click();
    await waitForProgress(page, '0 / 3');
    await expect(page.getByText('Continuing your unfinished session').count()).resolves.toBe(0);
  });

  it('lets the answer be typed, compares it loosely or strictly, shows the difference and suggests a grade', async () => {
    const page = b.page;
    const deck: SeedDeck = {
      id: 'deck-typing',
      name: 'Typing',
      cards: [
        { front: 'school', back: 'école' },
        { front: 'cat', back: 'chat' },
      ],
    };
    await seed(page, url(), [deck]);
    await page.goto(url(`/flashcards/${deck.id}/practice`));
    await card(page).waitFor();
    await page.getByRole('switch', { name: 'Type the answer' }).check();
    const input = page.getByLabel('Your answer (FR)');
    await input.waitFor();
    await page.waitForFunction(() => document.activeElement?.tagName === 'INPUT' && document.activeElement.getAttribute('role') !== 'switch');

    for (let i = 0; i < 2; i += 1) {
      const front = await prompt(page);
      if (front === 'school') {
        // Space types a space here, it does not flip.
        await page.keyboard.type('Ecole ');
        await expect(card(page).evaluate((el) => el.classList.contains('is-flipped'))).resolves.toBe(false);
        await page.keyboard.press('Enter');
        await page.getByText('Correct. The answer is “école”.').waitFor();
        await expect(page.locator('.type-answer__diff mark').textContent()).resolves.toBe('é');
        await expect(card(page).evaluate((el) => el.classList.contains('is-flipped'))).resolves.toBe(true);
        const knew = page.getByRole('button', { name: 'Knew it' });
        await expect(knew.evaluate((el) => el.classList.contains('is-suggested'))).resolves.toBe(true);
        await page.waitForFunction(() => document.activeElement?.textContent === 'Knew it');
        await page.getByText('Suggested from your answer: Knew it. You choose.').waitFor();
        await page.keyboard.press('Enter');
      } else {
        await page.keyboard.type('chats');
        await page.keyboard.press('Enter');
        await page.getByText('Not quite. The answer is “chat”.').waitFor();
        await expect(page.locator('.type-answer__diff del').textContent()).resolves.toBe('s');
        await expect(page.getByRole('button', { name: 'Didn’t know' }).evaluate((el) => el.classList.contains('is-suggested'))).resolves.toBe(true);
        // Only a suggestion: the learner may still say they knew it.
        await page.getByRole('button', { name: 'Knew it' }).click();
      }
      await waitForProgress(page, `${i + 1} / 2`);
    }
    await page.getByRole('heading', { name: 'Practice complete' }).waitFor();
    await expect(stat(page, 'Knew it')).resolves.toBe('2');

    // Strict: accents and capitals count. The option is remembered.
    await page.getByRole('button', { name: 'Restart' }).click();
    await page.getByRole('switch', { name: 'Strict' }).check();
    await expect(readStorage(page, 'practice:options')).resolves.toEqual({ typing: true, strict: true });
    await input.fill(ANSWERS[await prompt(page)] === 'école' ? 'ecole' : 'Chat');
    await input.press('Enter');
    await page.getByText(/^Not quite\./).waitFor();
  });

  it('says in words when a review cannot be stored, keeps the stored log and goes on', async () => {
    const page = b.page;
    await seed(page, url(), [FRENCH]);
    await page.goto(url(`/flashcards/${FRENCH.id}/practice`));
    await card(page).waitFor();
    await mark(page, true, '1 / 3');
    const before = await page.evaluate(() => localStorage.getItem('reviews:deck-french'));
    // Fill the rest of the browser's quota so the log, one mark longer, cannot fit.
    await fillStorage(page, 2);
    await mark(page, false, '2 / 3');
    await page
      .getByRole('alert')
      .getByText('Storage is full: this review could not be saved. Delete decks you no longer need to free space; nothing saved before was lost.')
      .waitFor();
    await expect(page.evaluate(() => localStorage.getItem('reviews:deck-french'))).resolves.toBe(before);
    await mark(page, true, '3 / 3');
    await page.getByRole('heading', { name: 'Practice complete' }).waitFor();
  });

  it('carries the review log through a JSON backup and back, and leaves it out of Anki text', async () => {
    const page = b.page;
    await seed(page, url(), [FRENCH]);
    await page.goto(url(`/flashcards/${FRENCH.id}/review`));
    await card(page).waitFor();
    await mark(page, true, '1 / 3');
    await mark(page, true, '2 / 3');
    await mark(page, true, '3 / 3');
    const original = (await readStorage(page, 'reviews:deck-french')) as StoredReviews;
    expect(original.log).toHaveLength(3);

    await openList(page);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export', exact: true }).click()]);
    const text = await readFile(await download.path(), 'utf8');
    expect(JSON.parse(text)).toMatchObject({ type: 'hearth-decks', reviews: { 'deck-french': { type: 'reviews', version: 1, log: original.log } } });

    const [anki] = await Promise.all([
      page.waitForEvent('download'),
      page
        .getByRole('button', { name: 'Export French basics', exact: true })
        .click()
        .then(() => page.getByRole('menuitem', { name: 'Export as Anki text' }).click()),
    ]);
    const ankiText = await readFile(await anki.path(), 'utf8');
    expect(ankiText.trim().split('\n')).toHaveLength(3 + 3);
    expect(ankiText).not.toMatch(/good|reviews/);

    // A fresh browser: import the backup and the deck comes back with its schedule.
    await seed(page, url(), []);
    await openList(page);
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Import decks' });
    await dialog.getByLabel('Or choose a file').setInputFiles({ name: 'backup.json', mimeType: 'application/json', buffer: Buffer.from(text) });
    await dialog.getByText('3 reviews', { exact: false }).waitFor();
    await dialog.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByText('Imported “French basics” with 3 cards.').waitFor();
    await expect(readStorage(page, 'reviews:deck-french')).resolves.toEqual(original);
    await expect(dueText(page, 'French basics')).resolves.toBe('0 due');

    // Deleting the deck removes its log.
    await deckCard(page, 'French basics').getByRole('link', { name: 'Edit French basics' }).click();
    page.once('dialog', (confirm) => void confirm.accept());
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('heading', { name: 'Your Decks' }).waitFor();
    await expect(readStorage(page, 'reviews:deck-french')).resolves.toBeNull();
  });
});

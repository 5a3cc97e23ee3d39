// Practice in Chromium against the real binary (SPEC.md 2 and 4): a full session by clicks and by
// keys, the animation lock, Undo, the completion screen with Review cards, Practice unknown again,
// Restart, bidirectional decks, redirects for missing or corrupt decks, and a touch swipe.
import { beforeEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useBrowser } from './support/browser';
import { useServer } from './support/server';
import { FRENCH, seed, type SeedDeck } from './flashcards-support/seed';

const ANSWERS: Record<string, string> = { cat: 'chat', dog: 'chien', one: 'un', chat: 'cat', chien: 'dog', un: 'one' };

describe('flashcards: practice', () => {
  const url = useServer();
  const b = useBrowser();
  beforeEach(() => {
    b.page.setDefaultTimeout(10_000);
  });

  const card = (page: Page) => page.locator('.flipcard--current');
  const prompt = (page: Page) => card(page).locator('.flipcard__face--front .flipcard__text').textContent();
  const promptLang = (page: Page) => card(page).locator('.flipcard__face--front .flipcard__lang').textContent();
  const answerLang = (page: Page) => card(page).locator('.flipcard__face--back .flipcard__lang').textContent();
  const isFlipped = (page: Page) => card(page).evaluate((el) => el.classList.contains('is-flipped'));
  const knew = (page: Page) => page.getByRole('button', { name: 'Knew it' });
  const didnt = (page: Page) => page.getByRole('button', { name: 'Didn’t know' });
  const progressText = (page: Page) => page.locator('.practice__progress .count').textContent();
  const waitForProgress = (page: Page, text: string) =>
    page.waitForFunction((t) => document.querySelector('.practice__progress .count')?.textContent === t, text);
  const stat = (page: Page, label: string) =>
    page
      .locator('.completion__stat', { has: page.getByText(label, { exact: true }) })
      .locator('dd')
      .textContent();

  async function open(page: Page, deck: SeedDeck = FRENCH) {
    await seed(page, url(), [deck]);
    await page.goto(url(`/flashcards/${deck.id}/practice`));
    await card(page).waitFor();
  }

  it('says there is nothing to practice in a deck whose cards are all suspended, spelt as everywhere ("practice")', async () => {
    const page = b.page;
    await seed(page, url(), [{ id: 'deck-rest', name: 'Resting', cards: [{ front: 'cat', back: 'chat', suspended: true }] }]);
    await page.goto(url('/flashcards/deck-rest/practice'));
    await page.getByRole('heading', { name: 'Nothing to practice yet' }).waitFor();
    expect(await page.locator('main').innerText()).not.toMatch(/practis/i);
  });

  it('runs a full session by clicks, with the buttons locked until flipped and during the swipe', async () => {
    const page = b.page;
    await open(page);
    await page.getByRole('heading', { name: 'French basics' }).waitFor();
    await page.locator('.practice__title').getByText('EN → FR').waitFor();
    await page.getByRole('link', { name: 'Edit deck' }).waitFor();
    await page.getByRole('link', { name: 'All decks' }).waitFor();
    await page.getByText('Click card or press Space to flip • ←/→ to mark').waitFor();
    await expect(page.getByRole('progressbar').getAttribute('aria-valuenow')).resolves.toBe('0');
    await expect(progressText(page)).resolves.toBe('0 / 3');
    // The next card's front is previewed behind the current one.
    await expect(page.locator('.flipcard--preview').count()).resolves.toBe(1);

    const seen: string[] = [];
    const marks = ['known', 'unknown', 'known'] as const;
    for (const [index, mark] of marks.entries()) {
      const front = (await prompt(page)) ?? '';
      seen.push(front);
      await expect(promptLang(page)).resolves.toBe('EN');
      await expect(knew(page).isDisabled()).resolves.toBe(true);
      await expect(didnt(page).isDisabled()).resolves.toBe(true);
      await card(page).click();
      await expect(isFlipped(page)).resolves.toBe(true);
      await expect(answerLang(page)).resolves.toBe('FR');
      await card(page)
        .locator('.flipcard__face--back')
        .getByText(ANSWERS[front] ?? '?', { exact: true })
        .waitFor();
      await (mark === 'known' ? knew(page) : didnt(page)).click();
      // While the card swipes out both buttons are locked.
      await expect(knew(page).isDisabled()).resolves.toBe(true);
      await waitForProgress(page, `${index + 1} / 3`);
    }
    expect(new Set(seen)).toEqual(new Set(['cat', 'dog', 'one']));

    await page.getByRole('heading', { name: 'Practice complete' }).waitFor();
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Practice complete');
    await expect(stat(page, 'Knew it')).resolves.toBe('2');
    await expect(stat(page, 'Didn’t know')).resolves.toBe('1');
    await expect(stat(page, 'Total')).resolves.toBe('3');
    await expect(page.getByRole('progressbar').getAttribute('aria-valuenow')).resolves.toBe('3');
    for (const name of ['Restart', 'Practice unknown again', 'Review cards']) await page.getByRole('button', { name }).waitFor();
    for (const name of ['Edit deck', 'Back to decks']) await page.locator('.completion').getByRole('link', { name }).waitFor();

    await page.getByRole('button', { name: 'Review cards' }).click();
    const rows = page.locator('#review-list tbody tr');
    await expect(rows.count()).resolves.toBe(3);
    await expect(rows.first().locator('td').allTextContents()).resolves.toEqual([seen[1], ANSWERS[seen[1] ?? ''], 'Didn’t know']);
    await expect(rows.nth(1).locator('td').last().textContent()).resolves.toBe('Knew it');
  });

  it('shows the back with pronunciation, the example in quotes and the gender pill', async () => {
    const page = b.page;
    await open(page, { ...FRENCH, id: 'one-card', cards: [FRENCH.cards[0] ?? { front: 'cat', back: 'chat' }] });
    await card(page).click();
    const back = card(page).locator('.flipcard__face--back');
    await back.getByText('chat', { exact: true }).waitFor();
    await back.getByText('/ʃa/').waitFor();
    await back.getByText('“Le chat dort.”').waitFor();
    await back.getByText('Gender: m').waitFor();
    await page.getByRole('status').filter({ hasText: 'Back, FR: chat' }).waitFor({ state: 'attached' });
    // The card is named by the face on screen: every visible word, in order, and nothing of the other face.
    await page.getByRole('button', { name: /^Back, FR\s?: chat\s?, \/ʃa\/\s?, “Le chat dort\.”\s?, Gender: m\s?\. Press to show the front\.$/ }).waitFor();
    // Clicking again turns it back.
    await card(page).click();
    await expect(isFlipped(page)).resolves.toBe(false);
  });

  it('runs a session by keys: Space flips, arrows mark only when flipped, nothing during the swipe', async () => {
    const page = b.page;
    await open(page);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowLeft');
    await expect(progressText(page)).resolves.toBe('0 / 3');
    await page.keyboard.press('Space');
    await expect(isFlipped(page)).resolves.toBe(true);
    await page.keyboard.press('Space');
    await expect(isFlipped(page)).resolves.toBe(false);
    await page.keyboard.press('Space');
    await page.keyboard.press('ArrowLeft');
    // During the ~470 ms swipe, further keys are ignored.
    await page.keyboard.press('Space');
    await page.keyboard.press('ArrowRight');
    await waitForProgress(page, '1 / 3');
    await expect(isFlipped(page)).resolves.toBe(false);
    for (const key of ['ArrowRight', 'ArrowRight']) {
      await page.keyboard.press('Space');
      await page.keyboard.press(key);
      await page.waitForFunction(() => !document.querySelector('.is-leaving-left, .is-leaving-right'));
    }
    await page.getByRole('heading', { name: 'Practice complete' }).waitFor();
    await expect(stat(page, 'Knew it')).resolves.toBe('2');
    await expect(stat(page, 'Didn’t know')).resolves.toBe('1');
  });

  it('takes back the last mark with Backspace and with the Undo button', async () => {
    const page = b.page;
    await open(page);
    await expect(page.getByRole('button', { name: 'Undo' }).isDisabled()).resolves.toBe(true);
    const first = await prompt(page);
    await page.keyboard.press('Space');
    await page.keyboard.press('ArrowLeft');
    await waitForProgress(page, '1 / 3');
    await page.keyboard.press('Backspace');
    await waitForProgress(page, '0 / 3');
    await expect(prompt(page)).resolves.toBe(first);
    // The card comes back answer-up, ready to be marked again.
    await expect(isFlipped(page)).resolves.toBe(true);
    await page.keyboard.press('ArrowRight');
    await waitForProgress(page, '1 / 3');
    await page.getByRole('button', { name: 'Undo' }).click();
    await waitForProgress(page, '0 / 3');
    await expect(prompt(page)).resolves.toBe(first);
    await expect(isFlipped(page)).resolves.toBe(true);
    await page.keyboard.press('ArrowRight');
    await waitForProgress(page, '1 / 3');
    for (let i = 2; i <= 3; i += 1) {
      await page.keyboard.press('Space');
      await page.keyboard.press('ArrowRight');
      await waitForProgress(page, `${i} / 3`);
    }
    await page.getByRole('heading', { name: 'Practice complete' }).waitFor();
    await expect(stat(page, 'Knew it')).resolves.toBe('3');
    await expect(stat(page, 'Didn’t know')).resolves.toBe('0');
    // All known: no 'Practice unknown again'.
    await expect(page.getByRole('button', { name: 'Practice unknown again' }).count()).resolves.toBe(0);
  });

  it('practises only the unknown cards again, then restarts with all of them', async () => {
    const page = b.page;
    await open(page);
    const unknown: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const front = (await prompt(page)) ?? '';
      await page.keyboard.press('Space');
      if (i < 2) unknown.push(front);
      await page.keyboard.press(i < 2 ? 'ArrowLeft' : 'ArrowRight');
      await waitForProgress(page, `${i + 1} / 3`);
    }
    await page.getByRole('button', { name: 'Practice unknown again' }).click();
    await waitForProgress(page, '0 / 2');
    const again: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      again.push((await prompt(page)) ?? '');
      await page.keyboard.press('Space');
      await page.keyboard.press('ArrowRight');
      await waitForProgress(page, `${i + 1} / 2`);
    }
    expect(again.sort()).toEqual(unknown.sort());
    await expect(stat(page, 'Total')).resolves.toBe('2');
    await expect(stat(page, 'Knew it')).resolves.toBe('2');

    await page.getByRole('button', { name: 'Restart' }).click();
    await waitForProgress(page, '0 / 3');
    await expect(isFlipped(page)).resolves.toBe(false);
    // Focus returns to the card so the keys keep working.
    await expect(page.evaluate(() => document.activeElement?.classList.contains('flipcard'))).resolves.toBe(true);
  });

  it('holds each card in both directions for a bidirectional deck, with the right language labels', async () => {
    const page = b.page;
    await open(page, { ...FRENCH, id: 'both', bidirectional: true, sourceLang: 'en', targetLang: 'hu', cards: FRENCH.cards.slice(0, 2) });
    await expect(progressText(page)).resolves.toBe('0 / 4');
    const asked: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const front = (await prompt(page)) ?? '';
      const lang = await promptLang(page);
      asked.push(`${lang}:${front}`);
      await page.keyboard.press('Space');
      await expect(answerLang(page)).resolves.toBe(lang === 'EN' ? 'HU' : 'EN');
      await card(page)
        .locator('.flipcard__face--back')
        .getByText(ANSWERS[front] ?? '?', { exact: true })
        .waitFor();
      await page.keyboard.press('ArrowRight');
      await waitForProgress(page, `${i + 1} / 4`);
    }
    expect(asked.sort()).toEqual(['EN:cat', 'EN:dog', 'HU:chat', 'HU:chien']);
    await expect(stat(page, 'Total')).resolves.toBe('4');
  });

  it('sends a missing or corrupt deck back to the deck list', async () => {
    const page = b.page;
    await seed(page, url(), [FRENCH], { 'decks:broken': '{"type":"deck","cards":[{"front":', 'decks:wrong': '"just a string"' });
    for (const id of ['broken', 'wrong', 'missing']) {
      await page.goto(url(`/flashcards/${id}/practice`));
      await page.waitForURL(url('/flashcards'));
      await page.getByRole('heading', { name: 'Your Decks' }).waitFor();
    }
  });

  it('swipes a flipped card on a touch screen: the card follows the finger, right knows, left does not', async () => {
    const phone = await b.browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    try {
      const page = await phone.newPage();
      page.setDefaultTimeout(10_000);
      await open(page);
      const cdp = await phone.newCDPSession(page);
      const box = await card(page).boundingBox();
      if (!box) throw new Error('card not visible');
      const y = box.y + box.height / 2;
      const x = box.x + box.width / 2;
      const swipe = async (dx: number, release = true) => {
        await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x, y }] });
        for (let step = 1; step <= 8; step += 1) {
          await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x: x + (dx * step) / 8, y }] });
        }
        if (release) await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
      };
      // Taps come at a human pace: after the previous card has left and the next one settled.
      const tap = async () => {
        await page.waitForFunction(() => !document.querySelector('.is-leaving-left, .is-leaving-right'));
        await page.waitForTimeout(300);
        await page.touchscreen.tap(x, y);
      };
      const dragX = () => card(page).evaluate((el) => (el as HTMLElement).style.getPropertyValue('--drag-x'));

      // Resolves once the card has seen the end of the next gesture and the page has painted since,
      // so whatever the gesture would change is on screen.
      const nextGestureEnd = async () => {
        await card(page).evaluate((el) => {
          (window as unknown as { __gestureEnd: Promise<void> }).__gestureEnd = new Promise<void>((resolve) => {
            const ended = () => requestAnimationFrame(() => requestAnimationFrame(() => resolve()));
            el.addEventListener('pointerup', ended, { once: true });
            el.addEventListener('pointercancel', ended, { once: true });
          });
        });
        return () => page.evaluate(() => (window as unknown as { __gestureEnd: Promise<void> }).__gestureEnd);
      };

      // No swipe before the first flip.
      const swiped = await nextGestureEnd();
      await swipe(150);
      await swiped();
      await expect(card(page).getAttribute('class')).resolves.not.toMatch(/is-leaving|is-dragging/);
      await expect(progressText(page)).resolves.toBe('0 / 3');
      await expect(dragX()).resolves.toBe('');

      // A tap flips.
      if (await isFlipped(page)) await page.touchscreen.tap(x, y);
      await page.touchscreen.tap(x, y);
      await expect(isFlipped(page)).resolves.toBe(true);

      // The flipped card follows the finger; let go short of the threshold and it returns.
      await swipe(30, false);
      expect(Number.parseFloat(await dragX())).toBeGreaterThan(15);
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
      await expect(dragX()).resolves.toBe('0px');
      await expect(progressText(page)).resolves.toBe('0 / 3');
      await expect(isFlipped(page)).resolves.toBe(true);

      await swipe(160);
      await waitForProgress(page, '1 / 3');
      await tap();
      await expect(isFlipped(page)).resolves.toBe(true);
      await swipe(-160);
      await waitForProgress(page, '2 / 3');
      await tap();
      await expect(isFlipped(page)).resolves.toBe(true);
      await swipe(160);
      await page.getByRole('heading', { name: 'Practice complete' }).waitFor();
      await expect(stat(page, 'Knew it')).resolves.toBe('2');
      await expect(stat(page, 'Didn’t know')).resolves.toBe('1');
    } finally {
      await phone.close();
    }
  });
});

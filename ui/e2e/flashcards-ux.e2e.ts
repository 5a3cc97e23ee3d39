// Issue 16, flashcards side, in Chromium against the real binary: edits are never lost (Unsaved
// marker, the leave question where no draft can keep them, a saved deck's own draft restored and discarded, Undo for Remove
// card), Save Deck in reach on a phone, its visible reason when disabled, the deck search, the
// Export menu by keyboard, and an Import that names the deck and says why it waits.
import { readFile } from 'node:fs/promises';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { useBrowser } from './support/browser';
import { useServer } from './support/server';
import { FRENCH, readStorage, seed, type SeedDeck } from './flashcards-support/seed';

const DUTCH: SeedDeck = { id: 'deck-dutch', name: 'Dutch verbs', author: 'Grace', targetLang: 'nl', cards: [{ front: 'to be', back: 'zijn' }] };
const HUNGARIAN: SeedDeck = { id: 'deck-hu', name: 'Magyar', targetLang: 'hu', cards: [{ front: 'water', back: 'víz' }] };

const front = (page: Page, n: number) => page.getByRole('textbox', { name: `Card ${n} front`, exact: true });
const back = (page: Page, n: number) => page.getByRole('textbox', { name: `Card ${n} back`, exact: true });
const leaveDialog = (page: Page) => page.getByRole('dialog', { name: 'Leave with unsaved changes?' });

/** Until the next page load, every draft write fails as with a full quota; other writes go on. */
const failDraftWrites = (page: Page) =>
  page.evaluate(() => {
    const setItem: (this: Storage, key: string, value: string) => void = Reflect.get(Storage.prototype, 'setItem');
    Storage.prototype.setItem = function (this: Storage, key: string, value: string) {
      if (key === 'deck:create:draft' || key.startsWith('deck:draft:')) throw new DOMException('full', 'QuotaExceededError');
      setItem.call(this, key, value);
    };
  });

/** Whether the whole element is inside the viewport and is what a tap at its centre reaches. */
async function inView(page: Page, locator: Locator): Promise<boolean> {
  const box = await locator.boundingBox();
  const viewport = page.viewportSize();
  if (!box || !viewport) return false;
  const inside = box.y >= 0 && box.x >= 0 && box.y + box.height <= viewport.height && box.x + box.width <= viewport.width;
  const reached = await locator.evaluate((element) => {
    const rect = element.getBoundingClientRect();
    const hit = document.elementFromPoint(rect.x + rect.width / 2, rect.y + rect.height / 2);
    return hit !== null && (hit === element || element.contains(hit));
  });
  return inside && reached;
}

describe('flashcards: nothing lost, in reach, said plainly', () => {
  const url = useServer();
  const b = useBrowser();
  beforeEach(() => {
    b.page.setDefaultTimeout(10_000);
  });

  it('marks unsaved changes, leaves them in a draft without asking, restores it until discarded, and asks when no draft can keep them', async () => {
    const page = b.page;
    await seed(page, url(), [FRENCH]);
    await page.goto(url('/flashcards/deck-french/edit'));
    await page.getByRole('heading', { name: 'New Deck' }).waitFor();
    await expect(page.getByText('Unsaved changes', { exact: true }).count()).resolves.toBe(0);
    await page.getByLabel('Deck name').fill('French renamed');
    await page.getByText('Unsaved changes', { exact: true }).waitFor();

    // The header link leaves without a question: the saved deck is untouched, the edit waits in
    // the deck's own draft (nothing is lost, so nothing is asked).
    await page.getByRole('link', { name: 'Flashcards' }).first().click();
    await page.waitForURL(url('/flashcards'));
    await page.getByRole('heading', { name: 'French basics' }).waitFor();
    await expect(leaveDialog(page).count()).resolves.toBe(0);
    await expect(readStorage(page, 'deck:draft:deck-french')).resolves.toMatchObject({ deckId: 'deck-french', meta: { name: 'French renamed' } });

    // Back in the editor: the edit is there, and the screen says so.
    await page.getByRole('link', { name: 'Edit French basics' }).click();
    await page.getByText(/^Restored your unsaved changes from /).waitFor();
    await expect(page.getByLabel('Deck name').inputValue()).resolves.toBe('French renamed');
    await page.getByText('Unsaved changes', { exact: true }).waitFor();

    // Discard brings back the saved deck and forgets the draft.
    await page.getByRole('button', { name: 'Discard changes' }).click();
    await expect(page.getByLabel('Deck name').inputValue()).resolves.toBe('French basics');
    await expect(page.getByText('Unsaved changes', { exact: true }).count()).resolves.toBe(0);
    await expect(readStorage(page, 'deck:draft:deck-french')).resolves.toBeNull();
    // Nothing unsaved: leaving asks nothing.
    await page.getByRole('link', { name: 'Flashcards' }).first().click();
    await page.waitForURL(url('/flashcards'));
    await expect(leaveDialog(page).count()).resolves.toBe(0);

    // A draft that cannot be written would lose the edit: then the header link asks first, and
    // Keep editing stays with the edit in place.
    await page.getByRole('link', { name: 'Edit French basics' }).click();
    await page.getByLabel('Deck name').waitFor();
    await failDraftWrites(page);
    await page.getByLabel('Deck name').fill('French lost');
    await page.getByRole('link', { name: 'Flashcards' }).first().click();
    await leaveDialog(page).waitFor();
    await leaveDialog(page).getByText('could not keep them as a draft').waitFor();
    await expect(
      leaveDialog(page)
        .getByRole('button', { name: 'Keep editing' })
        .evaluate((el) => el === document.activeElement),
    ).resolves.toBe(true);
    await leaveDialog(page).getByRole('button', { name: 'Keep editing' }).click();
    await leaveDialog(page).waitFor({ state: 'detached' });
    expect(page.url()).toBe(url('/flashcards/deck-french/edit'));
    await expect(page.getByLabel('Deck name').inputValue()).resolves.toBe('French lost');
    // Leave: the edit goes, as the question said; the saved deck is untouched.
    await page.getByRole('link', { name: 'Flashcards' }).first().click();
    await leaveDialog(page).getByRole('button', { name: 'Leave', exact: true }).click();
    await page.waitForURL(url('/flashcards'));
    await page.getByRole('heading', { name: 'French basics' }).waitFor();
    await expect(readStorage(page, 'deck:draft:deck-french')).resolves.toBeNull();
  });

  it('saves and leaves from the question, and a new deck’s restored draft says so and can be discarded', async () => {
    const page = b.page;
    await seed(page, url(), []);
    await page.goto(url('/flashcards/new'));
    await page.getByLabel('Deck name').waitFor();
    // The question comes only where no draft can keep the work.
    await failDraftWrites(page);
    await page.getByLabel('Deck name').fill('Colours');
    await front(page, 1).fill('red');
    await back(page, 1).fill('rouge');
    await page.getByRole('link', { name: 'Flashcards' }).first().click();
    await leaveDialog(page).getByRole('button', { name: 'Save and leave' }).click();
    await page.waitForURL(url('/flashcards'));
    await page.getByRole('heading', { name: 'Colours' }).waitFor();
    await expect(readStorage(page, 'deck:create:draft')).resolves.toBeNull();

    // An old new-deck draft is announced with a way to drop it.
    await page.goto(url('/flashcards/new'));
    await page.getByLabel('Deck name').fill('Half a deck');
    await page.waitForFunction(() => localStorage.getItem('deck:create:draft')?.includes('Half a deck'));
    await page.getByRole('link', { name: 'Flashcards' }).first().click();
    await page.waitForURL(url('/flashcards'));
    await expect(leaveDialog(page).count()).resolves.toBe(0);
    await page.getByRole('link', { name: 'New Deck' }).first().click();
    await page.getByText(/^Restored your unsaved changes/).waitFor();
    await expect(page.getByLabel('Deck name').inputValue()).resolves.toBe('Half a deck');
    await page.getByRole('button', { name: 'Discard changes' }).click();
    await expect(page.getByLabel('Deck name').inputValue()).resolves.toBe('');
    await expect(readStorage(page, 'deck:create:draft')).resolves.toBeNull();
  });

  it('offers Undo after Remove card and puts the card back in its place', async () => {
    const page = b.page;
    await seed(page, url(), [FRENCH]);
    await page.goto(url('/flashcards/deck-french/edit'));
    await expect(front(page, 2).inputValue()).resolves.toBe('dog');
    await page.getByRole('button', { name: 'Remove card 2' }).click();
    await expect(front(page, 2).inputValue()).resolves.toBe('one');
    await page.getByText('Card removed.').waitFor();
    await page.getByRole('button', { name: 'Undo', exact: true }).click();
    await expect(front(page, 2).inputValue()).resolves.toBe('dog');
    await expect(back(page, 2).inputValue()).resolves.toBe('chien');
    await expect(front(page, 2).evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await expect(page.getByText('Card removed.').count()).resolves.toBe(0);
  });

  it('shows why Save Deck is disabled, in words that follow what is missing', async () => {
    const page = b.page;
    await seed(page, url(), []);
    await page.goto(url('/flashcards/new'));
    const save = page.getByRole('button', { name: 'Save Deck' });
    await expect(save.isDisabled()).resolves.toBe(true);
    const reason = page.locator('#save-rule');
    await expect(reason.isVisible()).resolves.toBe(true);
    await expect(reason.textContent()).resolves.toBe('To save, give the deck a name and at least one card with both a front and a back.');
    await expect(save.getAttribute('aria-describedby')).resolves.toBe('save-rule');
    await page.getByLabel('Deck name').fill('Weather');
    await expect(reason.textContent()).resolves.toBe('To save, fill in both the front and the back of at least one card.');
    await front(page, 1).fill('rain');
    await back(page, 1).fill('pluie');
    await reason.waitFor({ state: 'detached' });
    await expect(save.isDisabled()).resolves.toBe(false);
  });

  it('finds decks by name, author or language and says when nothing matches', async () => {
    const page = b.page;
    await seed(page, url(), [FRENCH, DUTCH, HUNGARIAN]);
    await page.goto(url('/flashcards'));
    const search = page.getByRole('searchbox', { name: 'Search decks' });
    const names = () => page.locator('.deck-card__name').allTextContents();
    await search.fill('grace');
    await expect(names()).resolves.toEqual(['Dutch verbs']);
    await page.getByText('1 of 3').waitFor();
    await search.fill('HUNGARIAN');
    await expect(names()).resolves.toEqual(['Magyar']);
    await search.fill('francais nothing');
    await page.getByText('No decks match “francais nothing”.').waitFor();
    await page.getByRole('button', { name: 'Clear search' }).click();
    await expect(names()).resolves.toHaveLength(3);
    // The spec's count stays the number of decks.
    await expect(page.locator('.count').textContent()).resolves.toBe('3 deck(s)');
  });

  it('exports from one menu button that works with the keyboard', async () => {
    const page = b.page;
    await seed(page, url(), [FRENCH]);
    await page.goto(url('/flashcards'));
    const button = page.getByRole('button', { name: 'Export French basics', exact: true });
    await expect(button.getAttribute('aria-haspopup')).resolves.toBe('menu');
    await expect(button.getAttribute('aria-expanded')).resolves.toBe('false');
    await button.focus();
    await page.keyboard.press('ArrowDown');
    const menu = page.getByRole('menu', { name: 'Export French basics' });
    await menu.waitFor();
    await expect(button.getAttribute('aria-expanded')).resolves.toBe('true');
    const focused = () => page.evaluate(() => document.activeElement?.textContent);
    await expect(focused()).resolves.toBe('Export as JSON');
    await page.keyboard.press('ArrowDown');
    await expect(focused()).resolves.toBe('Export as Anki text');
    await page.keyboard.press('ArrowDown');
    await expect(focused()).resolves.toBe('Export as Anki package (.apkg)');
    await page.keyboard.press('ArrowDown');
    await expect(focused()).resolves.toBe('Export as JSON');
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    await expect(button.evaluate((el) => el === document.activeElement)).resolves.toBe(true);

    await page.keyboard.press('Enter');
    await menu.waitFor();
    await page.keyboard.press('End');
    await page.keyboard.press('ArrowUp');
    const [download] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
    expect(download.suggestedFilename()).toBe('french-basics.txt');
    expect((await readFile(await download.path(), 'utf8')).startsWith('#separator:tab')).toBe(true);
    await menu.waitFor({ state: 'detached' });

    // The last item, the Anki package: a zip named after the deck.
    await button.focus();
    await page.keyboard.press('Enter');
    await menu.waitFor();
    await page.keyboard.press('End');
    const [pkg] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
    expect(pkg.suggestedFilename()).toBe('french-basics.apkg');
    expect((await readFile(await pkg.path())).subarray(0, 4).toString('latin1')).toBe('PK\x03\x04');
  });
});

describe('flashcards on a phone (360×740)', () => {
  const url = useServer();
  const b = useBrowser({ viewport: { width: 360, height: 740 }, hasTouch: true, isMobile: true });
  beforeEach(() => {
    b.page.setDefaultTimeout(10_000);
  });

  it('keeps Save Deck in reach while writing the fifth card, with captions over the fields', async () => {
    const page = b.page;
    await seed(page, url(), []);
    await page.goto(url('/flashcards/new'));
    await page.getByLabel('Deck name').fill('Phone deck');
    for (let n = 1; n <= 5; n += 1) {
      if (n > 1) await page.getByRole('button', { name: 'Add another' }).click();
      await front(page, n).fill(`word ${n}`);
      await back(page, n).fill(`mot ${n}`);
    }
    await expect(back(page, 5).evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    const save = page.getByRole('button', { name: 'Save Deck' });
    await expect(inView(page, save)).resolves.toBe(true);
    // The field being typed in sits mid-screen, as a phone puts it above its keyboard; Save Deck
    // is still there, and does not cover it.
    await back(page, 5).evaluate((el) => el.scrollIntoView({ block: 'center' }));
    await expect(inView(page, save)).resolves.toBe(true);
    await expect(inView(page, back(page, 5))).resolves.toBe(true);
    // Field captions stand in for the hidden header row.
    const row = page.locator('.card-row[data-card-id]').nth(4);
    await expect(row.locator('.card-row__caption').first().isVisible()).resolves.toBe(true);
    await expect(row.locator('.card-row__caption').allTextContents()).resolves.toEqual([
      'EN (Front)',
      'FR (Back)',
      'Gender',
      'Pronunciation',
      'Example',
      'Tags',
    ]);
    await save.tap();
    await page.locator('#save-toast').waitFor();
    await page.waitForURL(/\/flashcards\/[0-9a-f-]{36}\/edit$/);
  });

  it('imports an Anki export named by its #deck: header, with the name and Import in view and the reason while it waits', async () => {
    const page = b.page;
    await seed(page, url(), []);
    await page.goto(url('/flashcards'));
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Import decks' });
    const importButton = dialog.getByRole('button', { name: 'Import', exact: true });
    await dialog.getByText('Paste text or choose a file to import.').waitFor();
    await expect(importButton.isDisabled()).resolves.toBe(true);

    const anki = ['#separator:tab', '#html:false', '#deck:Languages::French verbs', ...Array.from({ length: 12 }, (_, i) => `verb ${i}\tverbe ${i}`)].join(
      '\n',
    );
    await dialog.getByLabel('Or choose a file').setInputFiles({ name: 'export_2026.txt', mimeType: 'text/plain', buffer: Buffer.from(anki) });
    await dialog.getByText('Loaded export_2026.txt').waitFor();
    const name = dialog.getByLabel('Deck name');
    await expect(name.inputValue()).resolves.toBe('Languages › French verbs');
    await expect(inView(page, name)).resolves.toBe(true);
    await expect(inView(page, importButton)).resolves.toBe(true);

    // Without a name Import waits, and says why.
    await name.fill('');
    await dialog.getByText('Give the deck a name to import it.').waitFor();
    await expect(importButton.isDisabled()).resolves.toBe(true);
    await name.fill('French verbs');
    await importButton.tap();
    await page.getByText('Imported “French verbs” with 12 cards.').waitFor();
  });

  it('tells touch users about swiping, and answers a swipe before the flip by flipping the card', async () => {
    const page = b.page;
    await seed(page, url(), [FRENCH]);
    await page.goto(url('/flashcards/deck-french/practice'));
    await page.getByText('Click card or press Space to flip • ←/→ to mark').waitFor();
    await page.getByText('On touch screens: tap the card to flip, then swipe right for Knew it, left for Didn’t know.').waitFor();
    const card = page.locator('.flipcard--current');
    await expect(card.getAttribute('class')).resolves.not.toContain('is-flipped');
    const box = await card.boundingBox();
    if (!box) throw new Error('no card');
    const y = box.y + box.height / 2;
    await page.mouse.move(box.x + 60, y);
    await page.mouse.down();
    for (let step = 1; step <= 8; step += 1) await page.mouse.move(box.x + 60 + step * 15, y);
    await page.mouse.up();
    await page.getByText('Flipped for you: now swipe right for Knew it, left for Didn’t know.').waitFor();
    await expect(card.getAttribute('class')).resolves.toContain('is-flipped');
    // Nothing was marked by that swipe.
    await expect(page.locator('.practice__progress .count').textContent()).resolves.toBe('0 / 3');
  });

  it('names a deck after its file when the text has no #deck: header', async () => {
    const page = b.page;
    await seed(page, url(), []);
    await page.goto(url('/flashcards'));
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Import decks' });
    await dialog
      .getByLabel('Or choose a file')
      .setInputFiles({ name: 'kitchen_words.csv', mimeType: 'text/csv', buffer: Buffer.from('spoon,cuillère\nfork,fourchette\n') });
    await expect(dialog.getByLabel('Deck name').inputValue()).resolves.toBe('kitchen words');
  });
});

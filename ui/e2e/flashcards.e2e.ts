// The flashcard deck list and editor in Chromium against the real binary (SPEC.md 2-5): create,
// edit, reorder, save by button and Ctrl+S, the save toast, the draft, delete, the list's pills
// and order, corrupt records, and a phone-sized screen.
import { beforeEach, describe, expect, it } from 'vitest';
import type { Dialog, Page } from 'playwright-core';
import { useBrowser } from './support/browser';
import { useServer } from './support/server';
import { fillStorage, FRENCH, readStorage, seed } from './flashcards-support/seed';

interface StoredDeck {
  id: string;
  name: string;
  author: string;
  createdAt: string;
  type: string;
  version: number;
  bidirectional: boolean;
  cards: { id: string; front: string; back: string; gender: string }[];
}

describe('flashcards: deck list and editor', () => {
  const url = useServer();
  const b = useBrowser();
  beforeEach(() => {
    // Fail fast: a stuck test must not outlive its page and disturb the next one.
    b.page.setDefaultTimeout(10_000);
  });

  const front = (page: Page, n: number) => page.getByRole('textbox', { name: `Card ${n} front`, exact: true });
  const back = (page: Page, n: number) => page.getByRole('textbox', { name: `Card ${n} back`, exact: true });
  const frontValues = async (page: Page) => {
    await page.locator('input[data-field="front"]').first().waitFor();
    return page.locator('input[data-field="front"]').evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value));
  };
  const deckNames = async (page: Page) => {
    await page.locator('.deck-card__name').first().waitFor();
    return page.locator('.deck-card__name').allTextContents();
  };

  it('shows the empty state and opens the editor from it', async () => {
    const page = b.page;
    await page.goto(url('/flashcards'));
    await page.getByRole('heading', { name: 'Your Decks' }).waitFor();
    await expect(page.locator('.count').textContent()).resolves.toBe('0 deck(s)');
    await page.getByRole('heading', { name: 'No decks yet' }).waitFor();
    await page.getByText('Create your first deck to get started.').waitFor();
    await page.getByRole('link', { name: 'New Deck' }).last().click();
    await page.waitForURL(url('/flashcards/new'));
    await page.getByRole('heading', { name: 'New Deck' }).waitFor();
  });

  it('creates a deck with the keyboard: Enter walks the fields and adds rows; Save stays disabled until valid', async () => {
    const page = b.page;
    await page.goto(url('/flashcards/new'));
    const save = page.getByRole('button', { name: 'Save Deck' });
    await expect(save.isDisabled()).resolves.toBe(true);
    await expect(page.getByRole('columnheader', { name: 'EN (Front)', exact: true }).isVisible()).resolves.toBe(true);
    await page.getByRole('columnheader', { name: 'FR (Back)', exact: true }).waitFor();
    await page.getByText('Tab to move across fields • Enter on last field adds a new row').waitFor();
    await expect(front(page, 1).getAttribute('placeholder')).resolves.toBe('Front of the card');
    await expect(back(page, 1).getAttribute('placeholder')).resolves.toBe('Back of the card');
    await expect(page.getByRole('textbox', { name: 'Card 1 gender' }).getAttribute('placeholder')).resolves.toBe('m/f/n');
    await expect(page.getByRole('textbox', { name: 'Card 1 pronunciation' }).getAttribute('placeholder')).resolves.toBe('/IPA/');
    await expect(page.getByRole('textbox', { name: 'Card 1 example' }).getAttribute('placeholder')).resolves.toBe('Use the word in a sentence...');
    await expect(page.getByRole('button', { name: 'Move card 1 up' }).isDisabled()).resolves.toBe(true);
    await expect(page.getByRole('button', { name: 'Move card 1 down' }).isDisabled()).resolves.toBe(true);

    await page.getByLabel('Deck name').fill('Animals');
    await page.getByLabel('Deck author').fill('Grace');
    await page.getByLabel('Target language').selectOption('nl');
    await page.getByRole('columnheader', { name: 'NL (Back)', exact: true }).waitFor();
    // Optional columns follow their switches.
    await page.getByRole('switch', { name: 'Gender field' }).uncheck();
    await page.getByRole('switch', { name: 'Example field' }).uncheck();
    await expect(page.getByRole('textbox', { name: 'Card 1 gender' }).count()).resolves.toBe(0);
    await expect(page.getByRole('textbox', { name: 'Card 1 example' }).count()).resolves.toBe(0);

    await front(page, 1).fill('cat');
    await expect(save.isDisabled()).resolves.toBe(true);
    await expect(page.locator('.count').textContent()).resolves.toBe('1 cards');
    await front(page, 1).press('Enter');
    await expect(back(page, 1).evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await page.keyboard.type('kat');
    await expect(save.isEnabled()).resolves.toBe(true);
    await page.keyboard.press('Enter'); // to pronunciation
    await page.keyboard.type('/kɑt/');
    await page.keyboard.press('Enter'); // last field of the last row: a new row
    await expect(front(page, 2).evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await page.keyboard.type('dog');
    await page.keyboard.press('Enter');
    await page.keyboard.type('hond');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Enter');
    await expect(front(page, 3).evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await expect(page.locator('.count').textContent()).resolves.toBe('2 cards');

    await save.click();
    await page.locator('#save-toast').waitFor({ state: 'visible' });
    await page.waitForURL(/\/flashcards\/[0-9a-f-]{36}\/edit$/);
    await page.getByRole('heading', { name: 'New Deck' }).waitFor();
    const id = page.url().split('/').at(-2) ?? '';
    // The third, empty row stays in the editor but not in the saved deck.
    await expect(frontValues(page)).resolves.toEqual(['cat', 'dog', '']);
    const stored = (await readStorage(page, `decks:${id}`)) as StoredDeck;
    expect(stored).toMatchObject({ id, name: 'Animals', author: 'Grace', type: 'deck', version: 1, targetLang: 'nl' });
    expect(stored.cards.map((c) => [c.front, c.back])).toEqual([
      ['cat', 'kat'],
      ['dog', 'hond'],
    ]);
    await expect(readStorage(page, 'decks:index')).resolves.toEqual([id]);
    await expect(readStorage(page, 'deck:lastSaved')).resolves.toMatchObject({ id, name: 'Animals' });
    await expect(readStorage(page, 'deck:create:draft')).resolves.toBeNull();
    // The toast shows for 1.6 s.
    await page.locator('#save-toast').waitFor({ state: 'detached', timeout: 3000 });

    await page.goto(url('/flashcards'));
    await expect(page.locator('.count').textContent()).resolves.toBe('1 deck(s)');
    await page.getByRole('heading', { name: 'Animals' }).waitFor();
  });

  it('edits, reorders and saves with Ctrl+S, moving the deck to the front and resetting createdAt', async () => {
    const page = b.page;
    const older = { ...FRENCH, id: 'older', name: 'Older', createdAt: '2024-01-01T00:00:00.000Z' };
    await seed(page, url(), [FRENCH, older]);
    await page.goto(url('/flashcards/older/edit'));
    await page.getByRole('heading', { name: 'New Deck' }).waitFor();
    await expect(page.getByLabel('Deck name').inputValue()).resolves.toBe('Older');
    await expect(frontValues(page)).resolves.toEqual(['cat', 'dog', 'one']);

    await page.getByRole('button', { name: 'Move card 3 up' }).click();
    await expect(frontValues(page)).resolves.toEqual(['cat', 'one', 'dog']);
    // Focus stays with the moved card's button.
    await expect(page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).resolves.toBe('Move card 2 up');
    await page.keyboard.press('Enter');
    await expect(frontValues(page)).resolves.toEqual(['one', 'cat', 'dog']);
    await page.getByRole('button', { name: 'Move card 1 down' }).click();
    await expect(frontValues(page)).resolves.toEqual(['cat', 'one', 'dog']);
    await expect(page.getByRole('button', { name: 'Move card 3 down' }).isDisabled()).resolves.toBe(true);

    await page.getByRole('button', { name: 'Remove card 2' }).click();
    await expect(frontValues(page)).resolves.toEqual(['cat', 'dog']);
    await page.getByRole('button', { name: 'Add Card' }).click();
    await expect(front(page, 3).evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await page.keyboard.type('bird');
    await page.keyboard.press('Enter');
    await page.keyboard.type('oiseau');
    await page.getByLabel('Deck name').fill('Renamed');
    await page.keyboard.press('Control+s');
    await page.locator('#save-toast').waitFor({ state: 'visible' });

    const stored = (await readStorage(page, 'decks:older')) as StoredDeck;
    expect(stored.name).toBe('Renamed');
    expect(stored.cards.map((c) => c.front)).toEqual(['cat', 'dog', 'bird']);
    expect(Date.parse(stored.createdAt)).toBeGreaterThan(Date.parse('2025-06-01'));
    await expect(readStorage(page, 'decks:index')).resolves.toEqual(['older', 'deck-french']);

    // The list is sorted by createdAt: the just-saved deck comes first.
    await page.goto(url('/flashcards'));
    await expect(deckNames(page)).resolves.toEqual(['Renamed', 'French basics']);
  });

  it('shows each deck with its pills, description, date and links, newest first', async () => {
    const page = b.page;
    await seed(page, url(), [
      { ...FRENCH, id: 'a', name: '', author: '', description: '', createdAt: '2024-03-01T00:00:00.000Z', sourceLang: 'hu', targetLang: 'nl' },
      { ...FRENCH, id: 'b', createdAt: '2025-05-01T00:00:00.000Z' },
      { ...FRENCH, id: 'c', name: 'Middle', cards: [FRENCH.cards[0] ?? { front: 'x', back: 'y' }], createdAt: '2024-09-01T00:00:00.000Z' },
    ]);
    await page.goto(url('/flashcards'));
    await page.getByRole('heading', { name: 'Your Decks' }).waitFor();
    await expect(page.locator('.count').textContent()).resolves.toBe('3 deck(s)');
    await expect(deckNames(page)).resolves.toEqual(['French basics', 'Middle', 'Untitled deck']);

    const french = page.getByRole('listitem', { name: 'French basics' });
    await expect(french.locator('.pill').allTextContents()).resolves.toEqual(['EN → FR', '3 cards', 'Ada']);
    await french.getByText('Animals and numbers').waitFor();
    const date = await page.evaluate(() => new Date('2025-05-01T00:00:00.000Z').toLocaleDateString());
    await french.getByText(`Created: ${date}`).waitFor();
    await expect(page.getByRole('listitem', { name: 'Middle' }).locator('.pill').allTextContents()).resolves.toEqual(['EN → FR', '1 cards', 'Ada']);
    const untitled = page.getByRole('listitem', { name: 'Untitled deck' });
    await expect(untitled.locator('.pill').allTextContents()).resolves.toEqual(['HU → NL', '3 cards']);

    await french.getByRole('link', { name: 'Edit French basics' }).click();
    await page.waitForURL(url('/flashcards/b/edit'));
    await page.goBack();
    await page.getByRole('link', { name: 'Practice French basics' }).click();
    await page.waitForURL(url('/flashcards/b/practice'));
  });

  it('restores the draft after a reload and forgets it once saved', async () => {
    const page = b.page;
    await seed(page, url(), []);
    await page.goto(url('/flashcards/new'));
    await page.getByLabel('Deck name').fill('Half done');
    await page.getByRole('switch', { name: 'Bidirectional practice' }).check();
    await page.getByText('EN→FR and FR→EN').waitFor();
    await front(page, 1).fill('house');
    await page.getByRole('button', { name: 'Add another' }).click();
    await page.keyboard.type('tree');
    await page.waitForFunction(() => localStorage.getItem('deck:create:draft')?.includes('tree'));
    // The draft keeps the work, so the reload goes ahead without the browser's "Leave site?".
    const asked: string[] = [];
    const onDialog = (dialog: Dialog) => {
      asked.push(dialog.type());
      void dialog.dismiss();
    };
    page.on('dialog', onDialog);
    await page.reload();
    page.off('dialog', onDialog);
    expect(asked).toEqual([]);
    await page.getByText(/^Restored your unsaved changes/).waitFor();
    await expect(page.getByLabel('Deck name').inputValue()).resolves.toBe('Half done');
    await expect(frontValues(page)).resolves.toEqual(['house', 'tree']);
    await expect(page.getByRole('switch', { name: 'Bidirectional practice' }).isChecked()).resolves.toBe(true);

    // Leaving the page within the debounce still keeps the last keystrokes.
    await back(page, 1).fill('maison');
    await page.getByRole('link', { name: 'Flashcards' }).first().click();
    await page.waitForURL(url('/flashcards'));
    await page.getByRole('link', { name: 'New Deck' }).first().click();
    await expect(back(page, 1).inputValue()).resolves.toBe('maison');

    await page.keyboard.press('Control+s');
    await page.locator('#save-toast').waitFor();
    await expect(readStorage(page, 'deck:create:draft')).resolves.toBeNull();
    await page.goto(url('/flashcards/new'));
    await expect(page.getByLabel('Deck name').inputValue()).resolves.toBe('');
    await expect(frontValues(page)).resolves.toEqual(['']);
  });

  it('asks before deleting: Cancel keeps the deck, OK removes it and returns to the list', async () => {
    const page = b.page;
    await seed(page, url(), [FRENCH, { ...FRENCH, id: 'keep', name: 'Keep me' }]);
    await page.goto(url('/flashcards/deck-french/edit'));
    let message = '';
    page.once('dialog', (dialog) => {
      message = dialog.message();
      void dialog.dismiss();
    });
    await page.getByRole('button', { name: 'Delete' }).click();
    expect(message).toBe('Delete this deck? This cannot be undone.');
    expect(page.url()).toBe(url('/flashcards/deck-french/edit'));
    await expect(readStorage(page, 'decks:deck-french')).resolves.not.toBeNull();

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(url('/flashcards'));
    await expect(readStorage(page, 'decks:deck-french')).resolves.toBeNull();
    await expect(readStorage(page, 'decks:index')).resolves.toEqual(['keep']);
    await expect(deckNames(page)).resolves.toEqual(['Keep me']);
    // Focus lands on the page heading, with the outcome announced.
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Your Decks');
    await page.getByRole('status').filter({ hasText: 'Deleted' }).waitFor();
  });

  it('offers no Delete for a new deck', async () => {
    await b.page.goto(url('/flashcards/new'));
    await b.page.getByRole('heading', { name: 'New Deck' }).waitFor();
    await expect(b.page.getByRole('button', { name: 'Delete' }).count()).resolves.toBe(0);
  });

  it('treats a corrupt decks:{id} record as absent in the list and the editor, without crashing', async () => {
    const page = b.page;
    await seed(page, url(), [FRENCH], {
      'decks:index': JSON.stringify(['broken', 'deck-french', 'gone']),
      'decks:broken': '{"name": "Broken", "cards": [',
      'deck:create:draft': JSON.stringify({ meta: { name: 'From draft' }, cards: [{ front: 'draft card' }] }),
    });
    await page.goto(url('/flashcards'));
    await expect(deckNames(page)).resolves.toEqual(['French basics']);
    await expect(page.locator('.count').textContent()).resolves.toBe('1 deck(s)');
    // The editor ignores the unreadable deck and falls back to the draft.
    await page.goto(url('/flashcards/broken/edit'));
    await expect(page.getByLabel('Deck name').inputValue()).resolves.toBe('From draft');
    await expect(frontValues(page)).resolves.toEqual(['draft card']);
  });

  it('fills in missing card ids and texts of a partial record', async () => {
    const page = b.page;
    await seed(page, url(), [], {
      'decks:index': JSON.stringify(['partial']),
      'decks:partial': JSON.stringify({ name: 'Partial', cards: [{ front: 'only front' }, { back: 'only back' }] }),
    });
    await page.goto(url('/flashcards/partial/edit'));
    await expect(frontValues(page)).resolves.toEqual(['only front', '']);
    await expect(back(page, 2).inputValue()).resolves.toBe('only back');
    await expect(page.locator('.count').textContent()).resolves.toBe('2 cards');
  });

  it('shows "Storage is full" when the quota runs out, keeping the saved deck', async () => {
    const page = b.page;
    await seed(page, url(), [FRENCH]);
    await page.goto(url('/flashcards/deck-french/edit'));
    await page.getByLabel('Description').fill('x'.repeat(100));
    // Fill the rest of the browser's quota so the next save cannot fit.
    await fillStorage(page, 16);
    await page.getByRole('button', { name: 'Save Deck' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Storage is full: ' });
    await alert.waitFor();
    const stored = (await readStorage(page, 'decks:deck-french')) as StoredDeck;
    expect(stored.name).toBe('French basics');
    expect(stored.cards).toHaveLength(3);
  });

  it('fits a 360 px wide phone without sideways scrolling', async () => {
    const phone = await b.browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    try {
      const page = await phone.newPage();
      await seed(page, url(), [FRENCH]);
      for (const path of ['/flashcards', '/flashcards/deck-french/edit', '/flashcards/deck-french/practice']) {
        await page.goto(url(path));
        await page.locator('h1').first().waitFor();
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, path).toBeLessThanOrEqual(0);
      }
    } finally {
      await phone.close();
    }
  });
});

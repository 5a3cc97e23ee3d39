// Issue 26, in Chromium: decks in any language (the searchable select, the pill, a reload, speech
// that says when the device has no voice), decks the browser keeps (the quiet notice when
// navigator.storage.persist() is refused, stubbed in the page; the storage used on the progress
// page), and the editor that asks before a reload only when the draft could not be kept. axe on the
// changed screens, light and dark, phone and desktop.
import { beforeEach, describe, expect, it } from 'vitest';
import type { BrowserContext, Dialog, Page } from 'playwright-core';
import { axe, describeViolations } from './support/axe';
import { useBrowser } from './support/browser';
import { useServer } from './support/server';
import { FRENCH, readStorage, seed, type SeedDeck } from './flashcards-support/seed';

const DEVICES = [
  { name: 'phone', options: { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true } },
  { name: 'desktop', options: { viewport: { width: 1280, height: 800 } } },
] as const;

const JAPANESE: SeedDeck = { id: 'deck-ja', name: 'Kanji', sourceLang: 'de', targetLang: 'ja', cards: [{ front: 'Wasser', back: '水' }] };

/** navigator.storage as the test wants it: persist() granted or not, and a fixed estimate. */
async function stubStorage(context: BrowserContext, granted: boolean): Promise<void> {
  await context.addInitScript((granted: boolean) => {
    const calls: string[] = [];
    (window as unknown as { __persistCalls: string[] }).__persistCalls = calls;
    const manager = {
      persisted: () => Promise.resolve(false),
      persist: () => {
        calls.push('persist');
        return Promise.resolve(granted);
      },
      estimate: () => Promise.resolve({ usage: 1536, quota: 10 * 1024 ** 3 }),
    };
    Object.defineProperty(Navigator.prototype, 'storage', { configurable: true, get: () => manager });
  }, granted);
}

const notice = (page: Page) => page.getByRole('complementary', { name: 'Where your decks are kept' });

describe('flashcards: any language, decks kept, reloads that go', () => {
  const url = useServer();
  const b = useBrowser();
  beforeEach(() => {
    b.page.setDefaultTimeout(10_000);
  });

  it('searches the languages, picks German and Japanese, shows DE → JA, and keeps them over a reload', async () => {
    const page = b.page;
    await seed(page, url(), []);
    await page.goto(url('/flashcards/new'));
    // The spec's four come first.
    const target = page.getByRole('combobox', { name: 'Target language' });
    await target.waitFor();
    await expect(target.locator('option').evaluateAll((options) => options.slice(0, 4).map((o) => o.textContent))).resolves.toEqual([
      'English',
      'Dutch',
      'French',
      'Hungarian',
    ]);
    await expect(target.locator('option').count()).resolves.toBe(183);
    // Every option named (never a bare code such as "kj"), each name once (Twi is not a second "Akan").
    const names = await target.locator('option').allTextContents();
    expect(names.filter((name) => /^[a-z]{2}$/.test(name))).toEqual([]);
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
    expect(names).toEqual(expect.arrayContaining(['Kuanyama', 'Zhuang', 'Afar', 'Akan', 'Twi']));

    // Typing in the search picks the best match and says so; the list narrows to the matches.
    await page.getByRole('group', { name: 'Source language' }).getByRole('searchbox', { name: 'Search languages' }).fill('germ');
    await expect(page.getByRole('combobox', { name: 'Source language' }).inputValue()).resolves.toBe('de');
    await page.getByText('German chosen. 1 language matches.').waitFor({ state: 'attached' });
    // Its own name finds it too; Enter takes the best match, and ArrowDown goes to the list.
    await page.getByRole('group', { name: 'Target language' }).getByRole('searchbox', { name: 'Search languages' }).fill('日本');
    await expect(target.inputValue()).resolves.toBe('ja');
    await page.getByRole('group', { name: 'Target language' }).getByRole('searchbox', { name: 'Search languages' }).fill('ja');
    await expect(target.locator('option').first().textContent()).resolves.toBe('Japanese');
    await page.getByRole('group', { name: 'Target language' }).getByRole('searchbox', { name: 'Search languages' }).press('ArrowDown');
    await expect(target.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
    await target.selectOption({ label: 'Japanese' });
    await page.getByRole('columnheader', { name: 'DE (Front)' }).waitFor();
    await page.getByRole('columnheader', { name: 'JA (Back)' }).waitFor();

    await page.getByLabel('Deck name').fill('Kanji');
    await page.getByRole('textbox', { name: 'Card 1 front', exact: true }).fill('Wasser');
    await page.getByRole('textbox', { name: 'Card 1 back', exact: true }).fill('水');
    await page.getByRole('button', { name: 'Save Deck' }).click();
    await page.locator('#save-toast').waitFor();
    const saved = (await page.evaluate(() => JSON.parse(localStorage.getItem('decks:index') ?? '[]') as string[]))[0] ?? '';
    await expect(readStorage(page, `decks:${saved}`)).resolves.toMatchObject({ sourceLang: 'de', targetLang: 'ja' });

    await page.getByRole('link', { name: 'Flashcards' }).first().click();
    const card = page.getByRole('listitem', { name: 'Kanji' });
    await expect(card.locator('.pill').first().textContent()).resolves.toBe('DE → JA');
    await page.reload();
    await expect(page.getByRole('listitem', { name: 'Kanji' }).locator('.pill').first().textContent()).resolves.toBe('DE → JA');
    await page.getByRole('link', { name: 'Edit Kanji' }).click();
    await expect(page.getByRole('combobox', { name: 'Source language' }).inputValue()).resolves.toBe('de');
    await expect(page.getByRole('combobox', { name: 'Target language' }).inputValue()).resolves.toBe('ja');
    // The deck search knows the languages by name.
    await page.getByRole('link', { name: 'Flashcards' }).first().click();
    await page.getByRole('searchbox', { name: 'Search decks' }).fill('japanese');
    await expect(page.getByRole('listitem').count()).resolves.toBe(1);
  });

  it('keeps a deck stored with another language tag as it is', async () => {
    const page = b.page;
    await seed(page, url(), [{ ...FRENCH, sourceLang: 'pt-BR', targetLang: 'yue' }]);
    await page.goto(url('/flashcards'));
    await expect(page.getByRole('listitem', { name: 'French basics' }).locator('.pill').first().textContent()).resolves.toBe('PT-BR → YUE');
    await page.getByRole('link', { name: 'Edit French basics' }).click();
    const source = page.getByRole('combobox', { name: 'Source language' });
    await expect(source.inputValue()).resolves.toBe('pt-BR');
    await expect(source.locator('option:checked').textContent()).resolves.toBe('Brazilian Portuguese');
    await expect(page.getByRole('combobox', { name: 'Target language' }).locator('option:checked').textContent()).resolves.toBe('Cantonese');
  });

  it('says in words when the device has no voice for a side’s language', async () => {
    const context = await b.browser.newContext();
    await context.addInitScript(() => {
      const german = { lang: 'de-DE', name: 'Anna', localService: true, default: true, voiceURI: 'Anna' };
      Object.defineProperty(speechSynthesis, 'getVoices', { configurable: true, value: () => [german] });
    });
    const page = await context.newPage();
    try {
      await seed(page, url(), [JAPANESE]);
      await page.goto(url('/flashcards/deck-ja/practice'));
      await page.getByRole('button', { name: 'Pronounce “Wasser” in German' }).waitFor();
      await page.keyboard.press('Space');
      await page.getByText('No Japanese voice on this device').waitFor();
      await expect(page.getByRole('button', { name: /^Pronounce/ }).count()).resolves.toBe(0);
    } finally {
      await context.close();
    }
  });

  for (const device of DEVICES) {
    for (const scheme of ['light', 'dark'] as const) {
      it(`asks the browser to keep the decks and says quietly when it does not, pointing to Sync and Export (${device.name}, ${scheme})`, async () => {
        const context = await b.browser.newContext({ ...device.options, colorScheme: scheme });
        await stubStorage(context, false);
        const page = await context.newPage();
        page.setDefaultTimeout(10_000);
        try {
          // No deck yet: nothing to lose, nothing asked.
          await seed(page, url(), []);
          await page.goto(url('/flashcards'));
          await page.getByRole('heading', { name: 'No decks yet' }).waitFor();
          await page.waitForTimeout(200);
          await expect(notice(page).count()).resolves.toBe(0);
          await expect(page.evaluate(() => (window as unknown as { __persistCalls: string[] }).__persistCalls)).resolves.toEqual([]);

          await seed(page, url(), [FRENCH]);
          await page.goto(url('/flashcards'));
          await notice(page).waitFor();
          await expect(page.evaluate(() => (window as unknown as { __persistCalls: string[] }).__persistCalls)).resolves.toEqual(['persist']);
          await expect(notice(page).textContent()).resolves.toMatch(/kept only in this browser, and it has not agreed to keep them/);
          await expect(notice(page).getByRole('link', { name: 'Sync' }).getAttribute('href')).resolves.toBe('/sync');
          expect(describeViolations(`deck list with the notice (${device.name}, ${scheme})`, await axe(page))).toEqual([]);
          const download = page.waitForEvent('download');
          await notice(page).getByRole('button', { name: 'export a backup' }).click();
          expect((await download).suggestedFilename()).toMatch(/\.json$/);

          // The progress page says what the site stores.
          await page.goto(url('/flashcards/deck-french/progress'));
          await page.getByText('This site stores 1.5 KB on this device (the browser allows up to 10.0 GB)', { exact: false }).waitFor();
          expect(describeViolations(`progress (${device.name}, ${scheme})`, await axe(page))).toEqual([]);

          // The editor's language fields, narrowed by a search.
          await page.goto(url('/flashcards/deck-french/edit'));
          await page.getByRole('group', { name: 'Target language' }).getByRole('searchbox', { name: 'Search languages' }).fill('ja');
          expect(describeViolations(`editor (${device.name}, ${scheme})`, await axe(page))).toEqual([]);
        } finally {
          await context.close();
        }
      });
    }
  }

  it('shows no notice when the browser keeps the storage', async () => {
    const context = await b.browser.newContext();
    await stubStorage(context, true);
    const page = await context.newPage();
    try {
      await seed(page, url(), [FRENCH]);
      await page.goto(url('/flashcards'));
      await page.waitForFunction(() => (window as unknown as { __persistCalls: string[] }).__persistCalls.length === 1);
      await page.waitForTimeout(200);
      await expect(notice(page).count()).resolves.toBe(0);
    } finally {
      await context.close();
    }
  });

  it('reloads a new deck with a draft without asking, and the draft is back', async () => {
    const page = b.page;
    await seed(page, url(), []);
    await page.goto(url('/flashcards/new'));
    await page.getByLabel('Deck name').fill('Half done');
    await page.getByRole('textbox', { name: 'Card 1 front', exact: true }).fill('house');
    const asked: string[] = [];
    const onDialog = (dialog: Dialog) => {
      asked.push(dialog.type());
      void dialog.dismiss();
    };
    page.on('dialog', onDialog);
    // At once, within the draft's debounce: the way out writes it.
    await page.reload();
    await page.getByText(/^Restored your unsaved changes/).waitFor();
    await expect(page.getByLabel('Deck name').inputValue()).resolves.toBe('Half done');
    await expect(page.getByRole('textbox', { name: 'Card 1 front', exact: true }).inputValue()).resolves.toBe('house');

    // A saved deck's unsaved edit also comes back, so its reload does not ask either.
    await seed(page, url(), [FRENCH]);
    await page.goto(url('/flashcards/deck-french/edit'));
    await page.getByLabel('Deck name').fill('French renamed');
    await page.reload();
    await page.getByText(/^Restored your unsaved changes/).waitFor();
    await expect(page.getByLabel('Deck name').inputValue()).resolves.toBe('French renamed');
    page.off('dialog', onDialog);
    expect(asked).toEqual([]);
  });

  it('asks before a reload when the draft cannot be written, and stays when told to', async () => {
    const page = b.page;
    await seed(page, url(), []);
    await page.goto(url('/flashcards/new'));
    // A full quota, for the draft only.
    await page.evaluate(() => {
      const original = Object.getOwnPropertyDescriptor(Storage.prototype, 'setItem')?.value as (this: Storage, key: string, value: string) => void;
      Storage.prototype.setItem = function (this: Storage, key: string, value: string) {
        if (key === 'deck:create:draft') throw new DOMException('full', 'QuotaExceededError');
        original.call(this, key, value);
      };
    });
    await page.getByLabel('Deck name').fill('Cannot keep');
    const dialog = page.waitForEvent('dialog');
    void page.evaluate(() => location.reload()).catch(() => undefined);
    const asked = await dialog;
    expect(asked.type()).toBe('beforeunload');
    await asked.dismiss();
    await expect(page.getByLabel('Deck name').inputValue()).resolves.toBe('Cannot keep');
  });
});

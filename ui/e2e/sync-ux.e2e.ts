// Sync and share as a learner meets them (issue 34, item 8), in Chromium against the real binary
// with a sync key and an owner's name: the key is asked for in a dialog that names the key and
// whom to ask (never the browser's bare prompt), and a refused key is said so; a synced browser's
// storage notice says its decks are synced instead of offering Sync; the Share dialog on a phone
// leads with "Share…" (the device's share sheet) and keeps Revoke quiet at its end; the shared
// deck's page shows its author, its description and a cloze card as practice shows it; the review
// of an update shows front and back apart. axe on each of these screens, light and dark, phone
// and desktop.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { axe, describeViolations } from './support/axe';
import { launchBrowser } from './support/browser';
import { startServer, type RunningServer } from './support/server';
import { readStorage, seed } from './flashcards-support/seed';

const KEY = 'invite-only-7';
const DEVICES = [
  { name: 'phone', options: { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true } },
  { name: 'desktop', options: { viewport: { width: 1280, height: 800 } } },
] as const;
const SCHEMES = ['light', 'dark'] as const;

/** navigator.storage refusing to persist (the deck list's notice shows), and navigator.share recording what it is handed. */
const stubs = () => {
  const manager = {
    persisted: () => Promise.resolve(false),
    persist: () => Promise.resolve(false),
    estimate: () => Promise.resolve({ usage: 1536, quota: 10 * 1024 ** 3 }),
  };
  Object.defineProperty(Navigator.prototype, 'storage', { configurable: true, get: () => manager });
  const shared: unknown[] = [];
  (window as unknown as { __shared: unknown[] }).__shared = shared;
  Object.defineProperty(Navigator.prototype, 'share', {
    configurable: true,
    value: (data: unknown) => {
      shared.push(data);
      return Promise.resolve();
    },
  });
  Object.defineProperty(Navigator.prototype, 'canShare', { configurable: true, value: () => true });
};

const DECK = {
  id: 'deck-de',
  name: 'Tiere',
  author: 'Grete',
  description: 'Animals and what they do',
  sourceLang: 'de',
  targetLang: 'en',
  cards: [
    { front: 'der Hund', back: 'the dog' },
    { front: 'Der {{c1::Hund}} {{c2::bellt::verb}}', back: 'barking' },
  ],
};

describe('sync and share, as a learner meets them', () => {
  let server: RunningServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let shareLink = '';

  type State = Awaited<ReturnType<BrowserContext['storageState']>>;

  /**
   * axe on `what` in every device and scheme, each in a fresh context holding `state` (by default
   * this browser's storage; null: none), where `open` brings the screen. Fails on any violation.
   */
  async function everywhere(what: string, open: (page: Page) => Promise<void>, given?: State | null) {
    const state = given === undefined ? await context.storageState() : given;
    const found: string[] = [];
    for (const device of DEVICES) {
      for (const scheme of SCHEMES) {
        const other = await browser.newContext({ ...device.options, colorScheme: scheme, ...(state ? { storageState: state } : {}) });
        await other.addInitScript(stubs);
        try {
          const p = await other.newPage();
          p.setDefaultTimeout(15_000);
          await open(p);
          found.push(...describeViolations(`${what} (${device.name}, ${scheme})`, await axe(p)));
        } finally {
          await other.close();
        }
      }
    }
    expect(found, found.join('\n')).toEqual([]);
  }

  beforeAll(async () => {
    server = await startServer(['--sync-key', KEY, '--owner-name', 'Ada Lovelace']);
    browser = await launchBrowser();
    context = await browser.newContext(DEVICES[0].options);
    await context.addInitScript(stubs);
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
  });
  afterAll(async () => {
    await browser.close();
    await server.stop();
  });

  it('asks for the sync key in a dialog that names it and whom to ask, says when it was refused, and keeps it', async () => {
    const browserDialogs: string[] = [];
    page.on('dialog', (dialog) => {
      browserDialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await seed(page, server.url, [DECK]);
    await page.goto(`${server.url}/sync`);
    await page.getByRole('button', { name: 'Sync this browser' }).click();
    const dialog = page.getByRole('dialog', { name: 'This site’s sync key' });
    await dialog.waitFor();
    await dialog.getByText('Ask Ada Lovelace, who runs this site, for the sync key').waitFor();
    await expect(page.evaluate(() => document.activeElement?.getAttribute('type'))).resolves.toBe('password');
    await everywhere('the key dialog', async (p) => {
      await p.goto(`${server.url}/sync`);
      await p.getByRole('button', { name: 'Sync this browser' }).click();
      await p.getByRole('dialog', { name: 'This site’s sync key' }).waitFor();
    });

    await dialog.getByLabel('Sync key').fill('a guess');
    await dialog.getByRole('button', { name: 'Use this key' }).click();
    await dialog.getByRole('alert').getByText('The server did not accept that key.', { exact: false }).waitFor();
    await dialog.getByLabel('Sync key').fill(KEY);
    await dialog.getByRole('button', { name: 'Use this key' }).click();
    await page.getByText(/Last synced: /).waitFor();
    expect(browserDialogs).toEqual([]);
    await expect(page.evaluate(() => localStorage.getItem('site:key'))).resolves.toBe(KEY);
  });

  it('a synced browser’s storage notice says its decks are synced, and offers no Sync to turn on', async () => {
    await page.goto(`${server.url}/flashcards`);
    const notice = page.getByRole('complementary', { name: 'Where your decks are kept' });
    await notice.waitFor();
    await expect(notice.textContent()).resolves.toContain('synced with your other devices');
    await expect(notice.textContent()).resolves.not.toContain('turn on');
    await expect(notice.getByRole('link').count()).resolves.toBe(0);
    await everywhere('the deck list of a synced browser', async (p) => {
      await p.goto(`${server.url}/flashcards`);
      await p.getByRole('complementary', { name: 'Where your decks are kept' }).waitFor();
    });
  });

  it('the Share dialog on a phone leads with Share… (the share sheet) and keeps Revoke quiet at its end', async () => {
    await page.goto(`${server.url}/flashcards/${DECK.id}/edit`);
    await page.getByRole('button', { name: 'Share' }).click();
    await page.getByRole('button', { name: 'Create share link' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share this deck' });
    shareLink = await dialog.getByRole('textbox', { name: 'Share link' }).inputValue();
    const buttons = await dialog
      .locator('button')
      .evaluateAll((list) => list.map((b): { text: string; className: string } => ({ text: b.textContent.trim(), className: b.getAttribute('class') ?? '' })));
    const primary = buttons.filter((b) => b.className.includes('button--primary')).map((b) => b.text);
    expect(primary).toEqual(['Share…']);
    const revoke = buttons.find((b) => b.text === 'Revoke link');
    expect(revoke?.className).not.toMatch(/button--(primary|danger)/);
    expect(buttons.at(-1)?.text).toBe('Revoke link');
    await dialog.getByRole('button', { name: 'Share…' }).click();
    await expect(page.evaluate(() => (window as unknown as { __shared: unknown[] }).__shared)).resolves.toEqual([
      { title: 'Tiere', text: 'The flashcard deck “Tiere”', url: shareLink },
    ]);
    await everywhere('the Share dialog', async (p) => {
      await p.goto(`${server.url}/flashcards/${DECK.id}/edit`);
      await p.getByRole('button', { name: 'Share' }).click();
      await p.getByRole('textbox', { name: 'Share link' }).waitFor();
    });
  });

  it('the shared deck’s page shows its author and description, and a cloze card as practice does', async () => {
    const other = await browser.newContext();
    try {
      const p = await other.newPage();
      p.setDefaultTimeout(15_000);
      await p.goto(shareLink);
      await p.getByRole('heading', { name: 'Tiere' }).waitFor();
      await p.getByText('By Grete').waitFor();
      await p.getByText('Animals and what they do').waitFor();
      await p.getByRole('cell', { name: 'Der [...] [verb]', exact: true }).waitFor();
      await expect(p.getByRole('table').textContent()).resolves.not.toContain('{{');
      await expect(p.getByRole('cell', { name: /^Der Hund bellt/ }).textContent()).resolves.toBe('Der Hund bellt\nbarking');
    } finally {
      await other.close();
    }
    await everywhere(
      'the shared deck’s page',
      async (p) => {
        await p.goto(shareLink);
        await p.getByText('By Grete').waitFor();
      },
      null,
    );
  });

  it('the review of an update shows each card’s front and back apart', async () => {
    const learner = await browser.newContext();
    try {
      const b = await learner.newPage();
      b.setDefaultTimeout(15_000);
      await b.goto(shareLink);
      await b.getByRole('button', { name: 'Add to my decks' }).click();
      await b.getByRole('link', { name: 'Open my copy' }).waitFor();
      const [copyId] = ((await readStorage(b, 'decks:index')) ?? []) as string[];

      await page.keyboard.press('Escape');
      await page.getByRole('textbox', { name: 'Card 1 back', exact: true }).fill('the hound');
      await page.getByRole('button', { name: 'Save Deck' }).click();
      await page.getByText('Shared copy updated.').waitFor();

      await b.goto(`${server.url}/sync/update/${copyId ?? ''}`);
      const changed = b.getByRole('region', { name: '1 card changed' });
      await changed.waitFor();
      const [front, back] = await changed.getByRole('cell').allTextContents();
      expect(front).toBe('der Hund');
      expect(back).toBe('was: the dogbecomes: the hound');
      await expect(changed.locator('td del').textContent()).resolves.toBe('was: the dog');
      await expect(changed.locator('td ins').textContent()).resolves.toBe('becomes: the hound');
      await everywhere(
        'the review of an update',
        async (p) => {
          await p.goto(`${server.url}/sync/update/${copyId ?? ''}`);
          await p.getByRole('region', { name: '1 card changed' }).waitFor();
        },
        await learner.storageState(),
      );
    } finally {
      await learner.close();
    }
  }, 240_000);
});

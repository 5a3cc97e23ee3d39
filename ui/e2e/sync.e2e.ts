// Sync and shared decks in Chromium against the real binary: "Sync this browser" on one browser
// context, joining from its link on a second, an edit on one seen on the other (the latency is
// printed), cards added offline on both merged into the one deck when they reconnect (never a
// conflict copy), an edit made after seeing the edit of a browser whose clock is a day ahead
// winning on both,
// a shared deck added by a third context (its key gone from the address bar, a reload still
// showing it) and revoked, a vault the server no longer has started again, and --no-sync hiding
// it all. After syncing, the SQLite files and the server's output are searched for the deck's
// texts: none is there.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser } from './support/browser';
import { startServer, useServer, type RunningServer } from './support/server';
import { readStorage, seed } from './flashcards-support/seed';

const NAME = 'Zanzibar verbs';
const RENAMED = 'Zanzibar verbs, revised';
const SECRETS = [NAME, RENAMED, 'xylophone', 'quetzal', 'offline-from-a', 'offline-from-b', 'ahead-by-a-day', 'later-on-b', 'Zanzibar'];

interface StoredDeck {
  id: string;
  name: string;
  cards: { front: string; back: string }[];
}

async function decksIn(page: Page): Promise<StoredDeck[]> {
  const index = ((await readStorage(page, 'decks:index')) ?? []) as string[];
  const decks: StoredDeck[] = [];
  for (const id of index) {
    const deck = (await readStorage(page, `decks:${id}`)) as StoredDeck | null;
    if (deck) decks.push(deck);
  }
  return decks;
}

/** Waits (bounded) until `check` holds for the page's stored decks. */
async function until(page: Page, what: string, check: (decks: StoredDeck[]) => boolean, ms = 15_000): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (check(await decksIn(page))) return Date.now() - started;
    if (Date.now() - started > ms) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(await decksIn(page))}`);
    await page.waitForTimeout(50);
  }
}

/** Through the deck list and the editor, as a learner does (works offline: no page load). */
async function editDeck(page: Page, name: string, change: { rename?: string; addCard?: [string, string]; setBack?: [number, string] }) {
  await page.getByRole('link', { name: 'Flashcards' }).first().click();
  await page.getByRole('link', { name: `Edit ${name}`, exact: true }).click();
  await page.getByRole('textbox', { name: 'Deck name' }).waitFor();
  if (change.rename) await page.getByRole('textbox', { name: 'Deck name' }).fill(change.rename);
  if (change.addCard) {
    await page.getByRole('button', { name: 'Add Card' }).click();
    const rows = await page.locator('input[data-field="front"]').count();
    await page.getByRole('textbox', { name: `Card ${rows} front`, exact: true }).fill(change.addCard[0]);
    await page.getByRole('textbox', { name: `Card ${rows} back`, exact: true }).fill(change.addCard[1]);
  }
  if (change.setBack) await page.getByRole('textbox', { name: `Card ${change.setBack[0]} back`, exact: true }).fill(change.setBack[1]);
  await page.getByRole('button', { name: 'Save Deck' }).click();
  await page.locator('#save-toast').waitFor();
}

function filesOf(dir: string): Buffer[] {
  return readdirSync(dir).map((name) => readFileSync(join(dir, name)));
}

describe('sync: two browsers, one vault', () => {
  let server: RunningServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let a: Page;
  let b: Page;
  let link = '';
  let permanent = '';

  beforeAll(async () => {
    server = await startServer();
    browser = await launchBrowser();
    for (let i = 0; i < 3; i += 1) contexts.push(await browser.newContext());
    const [ca, cb] = contexts;
    if (!ca || !cb) throw new Error('no contexts');
    a = await ca.newPage();
    b = await cb.newPage();
    for (const page of [a, b]) page.setDefaultTimeout(15_000);
  });
  afterAll(async () => {
    await browser.close();
    await server.stop();
  });

  it('makes a vault with a link and QR code, and a second browser joins it from the link', async () => {
    await seed(a, server.url, [{ id: 'deck-z', name: NAME, cards: [{ front: 'xylophone', back: 'quetzal' }] }]);
    await a.goto(`${server.url}/flashcards`);
    // The deck list's badge (the storage notice below the decks may name Sync too).
    await a.getByRole('link', { name: 'Sync', exact: true }).first().click();
    await a.getByRole('button', { name: 'Sync this browser' }).click();
    await a.getByRole('img', { name: 'QR code of the sync link' }).waitFor();
    // A one-time link for the other browser; the vault's own link on request.
    link = await a.getByRole('textbox', { name: 'Sync link' }).inputValue();
    expect(link).toMatch(/\/sync#h=[0-9a-f]{32}&k=[\w-]+$/);
    await a.getByText('This browser’s permanent sync link').click();
    permanent = await a.getByRole('textbox', { name: 'Permanent link' }).inputValue();
    expect(permanent).toMatch(/\/sync#v=[0-9a-f]{32}&k=[\w-]+&t=[\w-]{43}$/);

    await b.goto(`${server.url}/flashcards`);
    await b.goto(link);
    // The secrets leave the address bar at once.
    await b.waitForURL(`${server.url}/sync`);
    await b.getByRole('button', { name: 'Join and sync' }).click();
    await b.getByText(/Last synced: /).waitFor();
    await b.getByRole('link', { name: 'Back to decks' }).click();
    await b.getByRole('heading', { name: NAME }).waitFor();
    await b.getByRole('link', { name: /^Synced / }).waitFor();
  });

  it('an edit on one browser shows on the other (latency printed)', async () => {
    await a.goto(`${server.url}/flashcards`);
    await editDeck(a, NAME, { rename: RENAMED });
    const saved = Date.now();
    // B sits on the deck list, which shows decks as sync brings them.
    await b.getByRole('heading', { name: RENAMED }).waitFor();
    const latency = Date.now() - saved;
    console.log(`sync latency: edit saved on A → visible on B's deck list in ${latency} ms`);
    expect(latency).toBeLessThan(15_000);
  });

  it('cards added offline to one deck on both browsers end in that one deck, no conflict copy', async () => {
    const [ca, cb] = contexts;
    if (!ca || !cb) throw new Error('no contexts');
    await ca.setOffline(true);
    await cb.setOffline(true);
    await editDeck(a, RENAMED, { addCard: ['offline-from-a', 'a'] });
    await editDeck(b, RENAMED, { addCard: ['offline-from-b', 'b'] });
    await ca.setOffline(false);
    await cb.setOffline(false);
    const merged = (decks: StoredDeck[]) => {
      const fronts = decks.flatMap((deck) => deck.cards.map((card) => card.front));
      return fronts.includes('offline-from-a') && fronts.includes('offline-from-b');
    };
    await until(a, 'both offline cards on A', merged);
    await until(b, 'both offline cards on B', merged);
    expect(await decksIn(a)).toEqual(await decksIn(b));
    for (const page of [a, b]) {
      const decks = await decksIn(page);
      expect(decks.map((deck) => deck.name)).toEqual([RENAMED]);
      // Both added after the first card: their order is the same on both browsers.
      expect(decks[0]?.cards.map((card) => card.front).sort()).toEqual(['offline-from-a', 'offline-from-b', 'xylophone']);
      expect(decks[0]?.cards[0]?.front).toBe('xylophone');
    }
  });

  it('an edit made after seeing the edit of a browser whose clock is a day ahead wins on both', async () => {
    const [ca] = contexts;
    if (!ca) throw new Error('no context');
    await ca.addInitScript(() => {
      const real = Date.now.bind(Date);
      Date.now = () => real() + 24 * 60 * 60 * 1000;
    });
    await a.reload();
    await editDeck(a, RENAMED, { setBack: [1, 'ahead-by-a-day'] });
    const hasBack = (back: string) => (decks: StoredDeck[]) => decks[0]?.cards[0]?.back === back;
    await until(b, 'the edit of the browser a day ahead on B', hasBack('ahead-by-a-day'));
    await editDeck(b, RENAMED, { setBack: [1, 'later-on-b'] });
    await until(a, 'the later edit on A', hasBack('later-on-b'));
    await until(b, 'the later edit staying on B', hasBack('later-on-b'));
    for (const page of [a, b]) {
      const [card] = (await decksIn(page))[0]?.cards ?? [];
      expect(card).not.toHaveProperty('conflict');
    }
  });

  it('the server holds only ciphertext: no deck name or card text in its files or its output', () => {
    for (const file of filesOf(server.dataDir)) {
      const text = file.toString('latin1') + file.toString('utf8');
      for (const secret of SECRETS) expect(text.includes(secret), `${secret} in the database`).toBe(false);
    }
    const blobs = filesOf(server.dataDir).reduce((sum, file) => sum + file.length, 0);
    expect(blobs).toBeGreaterThan(0);
    for (const secret of SECRETS) expect(server.output().includes(secret), `${secret} in the server's output`).toBe(false);
    // Nor the key: it stays in the fragment.
    const key = new URL(permanent).hash.split('&k=')[1]?.split('&')[0] ?? '';
    expect(key.length).toBeGreaterThan(20);
    expect(server.output().includes(key)).toBe(false);
  });

  it('a shared deck is added by a third browser as a copy, and the link stops working once revoked', async () => {
    const ctxC = contexts[2];
    if (!ctxC) throw new Error('no context');
    await a.getByRole('link', { name: 'Flashcards' }).first().click();
    await a.getByRole('link', { name: `Edit ${RENAMED}`, exact: true }).click();
    await a.getByRole('button', { name: 'Share' }).click();
    await a.getByRole('button', { name: 'Create share link' }).click();
    const shared = await a.getByRole('textbox', { name: 'Share link' }).inputValue();
    expect(shared).toMatch(/\/sync\/deck#s=[0-9a-f]{32}&k=[\w-]+$/);

    const c = await ctxC.newPage();
    c.setDefaultTimeout(15_000);
    await c.goto(shared);
    await c.getByRole('heading', { name: RENAMED }).waitFor();
    await c.getByRole('cell', { name: 'xylophone' }).waitFor();
    // Once read, the key leaves the address bar (path kept); only this tab's session keeps it, so
    // a reload still opens the deck.
    const shareKey = new URL(shared).hash.split('&k=')[1] ?? '';
    expect(shareKey.length).toBeGreaterThan(20);
    await c.waitForURL(`${server.url}/sync/deck`);
    expect(c.url()).not.toContain('k=');
    const stored = await c.evaluate(() =>
      Object.keys(localStorage)
        .map((name) => `${name}=${localStorage.getItem(name) ?? ''}`)
        .join('\n'),
    );
    expect(stored).not.toContain(shareKey);
    await c.reload();
    await c.getByRole('heading', { name: RENAMED }).waitFor();
    await c.getByRole('cell', { name: 'xylophone' }).waitFor();
    expect(c.url()).toBe(`${server.url}/sync/deck`);
    await c.getByRole('button', { name: 'Add to my decks' }).click();
    await c.getByText(`Added “${RENAMED}” to your decks.`).waitFor();
    const copies = await decksIn(c);
    expect(copies.map((deck) => deck.name)).toEqual([RENAMED]);
    expect(copies[0]?.id).not.toBe('deck-z');
    await c.goto(`${server.url}/flashcards`);
    await c.getByRole('heading', { name: RENAMED }).waitFor();

    await a.getByRole('button', { name: 'Revoke link' }).click();
    await a.getByRole('button', { name: 'Create share link' }).waitFor();
    const late = await ctxC.newPage();
    await late.goto(shared);
    await late.getByText(/^This shared deck’s link was revoked/).waitFor();
  });

  it('a vault the server no longer has: the deck list and the sync page say so, and syncing starts again from the decks here', async () => {
    const fields = new URLSearchParams(new URL(permanent).hash.slice(1));
    const removed = await fetch(`${server.url}/api/sync/vaults/${fields.get('v') ?? ''}`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${fields.get('t') ?? ''}` },
    });
    expect(removed.ok).toBe(true);
    await a.goto(`${server.url}/flashcards`);
    await a.getByRole('link', { name: 'Sync stopped' }).click();
    await a.getByText(/no longer has this browser's sync vault/).waitFor();
    await a.getByRole('button', { name: 'Start syncing this browser again' }).click();
    await a.getByText(/Last synced: /).waitFor();
    await a.getByRole('textbox', { name: 'Sync link' }).waitFor();
    await a.getByText('This browser’s permanent sync link').click();
    const fresh = new URLSearchParams(new URL(await a.getByRole('textbox', { name: 'Permanent link' }).inputValue()).hash.slice(1));
    expect(fresh.get('v')).toMatch(/^[0-9a-f]{32}$/);
    expect(fresh.get('v')).not.toBe(fields.get('v'));
    expect((await decksIn(a)).map((deck) => deck.name)).toContain(RENAMED);
    expect((await fetch(`${server.url}/api/sync/vaults/${fresh.get('v') ?? ''}`)).status).toBe(200);
  });
});

describe('sync turned off (--no-sync)', () => {
  const url = useServer(['--no-sync']);
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser.close();
  });

  it('shows no sync or share control, and the sync page says it is off', async () => {
    const page = await (await browser.newContext()).newPage();
    page.setDefaultTimeout(10_000);
    await seed(page, url(), [{ id: 'deck-1', name: 'Plain deck', cards: [{ front: 'a', back: 'b' }] }]);
    await page.goto(url('/flashcards'));
    await page.getByRole('heading', { name: 'Plain deck' }).waitFor();
    // The page itself says sync is off (the server writes it in), so the app never has to ask and
    // the first render is already the final one.
    const asked: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/sync') asked.push(request.url());
    });
    await page.goto(url('/flashcards/deck-1/edit'));
    await page.getByRole('button', { name: 'Save Deck' }).waitFor();
    await expect(page.locator('#hearth-sync').textContent()).resolves.toBe('null');
    expect(await page.getByRole('button', { name: 'Share' }).count()).toBe(0);
    expect(asked).toEqual([]);
    await page.goto(url('/flashcards'));
    await page.getByRole('heading', { name: 'Plain deck' }).waitFor();
    expect(await page.getByRole('link', { name: 'Sync' }).count()).toBe(0);
    await page.goto(url('/sync'));
    await page.getByText('Sync is turned off on this server.').waitFor();
  });
});

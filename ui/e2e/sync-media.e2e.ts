// A card's picture through sync and a share link, in Chromium against the real binary: a picture
// put into browser A's media store (IndexedDB, as the app's store keeps it) and on a card; "Sync
// this browser" sends it once, sealed; browser B joins from the link and gets the card and the
// file in its own store; further syncs send and fetch nothing for it (the requests are counted);
// the server's database files hold none of its bytes; a share link opened in a third browser
// brings the picture with "Add to my decks".
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { launchBrowser } from './support/browser';
import { startServer, type RunningServer } from './support/server';
import { deckRecord, readStorage } from './flashcards-support/seed';

const NAME = 'Tiere mit Bildern';
/** Bytes no sealed file could hold by chance: the test looks for them in the server's files. */
const MARKER = 'hearth-msync-plain-picture-bytes-0f1e2d3c';

/** A small "picture": a PNG signature, the marker and filler (the bytes are what sync carries). */
function pictureBytes(): number[] {
  const head = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  const marker = [...Buffer.from(MARKER)];
  const filler = Array.from({ length: 4096 }, (_, i) => (i * 31) % 251);
  return [...head, ...marker, ...filler, ...marker];
}

/** Puts the file into the page's media store (database hearth-media, store files, as store.ts keeps it); its SHA-256. */
async function putPicture(page: Page, bytes: number[]): Promise<string> {
  return page.evaluate(async (list) => {
    const buffer = new Uint8Array(list).buffer;
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', buffer));
    const hash = Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = indexedDB.open('hearth-media', 1);
      request.onupgradeneeded = () => request.result.createObjectStore('files', { keyPath: 'hash' });
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error ?? new Error('no database'));
    });
    await new Promise<void>((resolve, reject) => {
      const tx = db.transaction('files', 'readwrite');
      tx.objectStore('files').put({ hash, type: 'image/png', bytes: buffer, size: buffer.byteLength });
      tx.oncomplete = () => resolve();
      tx.onerror = () => reject(tx.error ?? new Error('not stored'));
    });
    db.close();
    return hash;
  }, bytes);
}

/** The file's bytes in the page's media store, or null. */
async function storedPicture(page: Page, hash: string): Promise<number[] | null> {
  return page.evaluate(async (key) => {
    const db = await new Promise<IDBDatabase | null>((resolve) => {
      const request = indexedDB.open('hearth-media');
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => resolve(null);
    });
    if (!db?.objectStoreNames.contains('files')) return null;
    const file = await new Promise<{ bytes: ArrayBuffer } | undefined>((resolve) => {
      const request = db.transaction('files').objectStore('files').get(key);
      request.onsuccess = () => resolve(request.result as { bytes: ArrayBuffer } | undefined);
      request.onerror = () => resolve(undefined);
    });
    db.close();
    return file ? [...new Uint8Array(file.bytes)] : null;
  }, hash);
}

async function until<T>(what: string, check: () => Promise<T | null>, ms = 15_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await check();
    if (value !== null) return value;
    if (Date.now() - started > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The media requests a page sends, as `METHOD path`. */
function mediaRequests(page: Page): string[] {
  const seen: string[] = [];
  page.on('request', (request: Request) => {
    const path = new URL(request.url()).pathname;
    if (path.includes('/media')) seen.push(`${request.method()} ${path}`);
  });
  return seen;
}

describe('sync: a picture between two browsers and through a share link', () => {
  let server: RunningServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let a: Page;
  let b: Page;
  let hash = '';
  let aMedia: string[] = [];
  let bMedia: string[] = [];
  const picture = pictureBytes();

  beforeAll(async () => {
    server = await startServer();
    browser = await launchBrowser();
    for (let i = 0; i < 3; i += 1) contexts.push(await browser.newContext());
    const [ca, cb] = contexts;
    if (!ca || !cb) throw new Error('no contexts');
    a = await ca.newPage();
    b = await cb.newPage();
    for (const page of [a, b]) page.setDefaultTimeout(15_000);
    aMedia = mediaRequests(a);
    bMedia = mediaRequests(b);
  });
  afterAll(async () => {
    await browser.close();
    await server.stop();
  });

  it('a picture on a card of browser A reaches browser B, sent once and fetched once', async () => {
    await a.goto(`${server.url}/flashcards`);
    hash = await putPicture(a, picture);
    const deck = deckRecord({ id: 'deck-tiere', name: NAME, cards: [{ front: 'der Hund', back: 'the dog' }] });
    const cards = (deck.cards as Record<string, unknown>[]).map((card) => ({ ...card, media: [{ hash, name: 'hund.png', kind: 'image', field: 'front' }] }));
    await a.evaluate(
      ([record]) => {
        localStorage.setItem('decks:index', JSON.stringify(['deck-tiere']));
        localStorage.setItem('decks:deck-tiere', record ?? '');
      },
      [JSON.stringify({ ...deck, cards })],
    );
    await a.goto(`${server.url}/flashcards`);
    await a.getByRole('link', { name: 'Sync', exact: true }).first().click();
    await a.getByRole('button', { name: 'Sync this browser' }).click();
    const link = await a.getByRole('textbox', { name: 'Sync link' }).inputValue();
    await until('A to send the picture', () => Promise.resolve(aMedia.some((r) => r.startsWith('PUT ')) ? true : null));

    await b.goto(`${server.url}/flashcards`);
    await b.goto(link);
    await b.getByRole('button', { name: 'Join and sync' }).click();
    await b.getByText(/Last synced: /).waitFor();
    const got = await until('B to hold the picture', () => storedPicture(b, hash));
    expect(got).toEqual(picture);
    const bDeck = (await readStorage(b, 'decks:deck-tiere')) as { cards: { media?: { hash: string }[] }[] } | null;
    expect(bDeck?.cards[0]?.media?.[0]?.hash).toBe(hash);
    expect(bMedia.filter((r) => r.startsWith('GET ') && /\/media\/[\w-]+$/.test(r))).toHaveLength(1);
    console.log(`picture sync: A sent ${aMedia.join(', ')}; B fetched ${bMedia.join(', ')}`);
  });

  it('later syncs send and fetch nothing for it', async () => {
    const aBefore = aMedia.length;
    const bBefore = bMedia.length;
    // An edit on A (a second sync each way): the deck moves, the picture does not.
    await a.evaluate(() => {
      const record = JSON.parse(localStorage.getItem('decks:deck-tiere') ?? '{}') as Record<string, unknown>;
      localStorage.setItem('decks:deck-tiere', JSON.stringify({ ...record, name: 'Tiere, zweite Fassung', createdAt: new Date().toISOString() }));
    });
    await a.goto(`${server.url}/flashcards`);
    await a.getByRole('heading', { name: 'Tiere, zweite Fassung' }).waitFor();
    await b.goto(`${server.url}/flashcards`);
    await b.getByRole('heading', { name: 'Tiere, zweite Fassung' }).waitFor({ timeout: 20_000 });
    // A few more polls on both.
    await b.waitForTimeout(4_000);
    expect(aMedia.slice(aBefore)).toEqual([]);
    expect(bMedia.slice(bBefore)).toEqual([]);
  });

  it('the server holds none of the picture’s bytes', () => {
    const marker = Buffer.from(MARKER);
    for (const name of readdirSync(server.dataDir)) {
      if (!name.startsWith('hearth.db')) continue;
      expect(readFileSync(join(server.dataDir, name)).includes(marker), name).toBe(false);
    }
    expect(server.output().includes(MARKER)).toBe(false);
  });

  it('a share link opened in a third browser brings the picture with "Add to my decks"', async () => {
    const ctxC = contexts[2];
    if (!ctxC) throw new Error('no context');
    await a.getByRole('link', { name: 'Flashcards' }).first().click();
    await a.getByRole('link', { name: 'Edit Tiere, zweite Fassung', exact: true }).click();
    await a.getByRole('button', { name: 'Share' }).click();
    await a.getByRole('button', { name: 'Create share link' }).click();
    const shared = await a.getByRole('textbox', { name: 'Share link' }).inputValue();

    const c = await ctxC.newPage();
    c.setDefaultTimeout(15_000);
    const cMedia = mediaRequests(c);
    await c.goto(shared);
    await c.getByRole('cell', { name: 'der Hund' }).waitFor();
    await c.getByRole('button', { name: 'Add to my decks' }).click();
    await c.getByText('Added “Tiere, zweite Fassung” to your decks.').waitFor();
    expect(await storedPicture(c, hash)).toEqual(picture);
    expect(cMedia.filter((r) => r.startsWith('GET ') && r.includes('/shares/'))).toHaveLength(1);
    const marker = Buffer.from(MARKER);
    for (const name of readdirSync(server.dataDir)) {
      if (name.startsWith('hearth.db')) expect(readFileSync(join(server.dataDir, name)).includes(marker), name).toBe(false);
    }
  });
});

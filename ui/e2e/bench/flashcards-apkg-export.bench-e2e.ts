// "Export as Anki package (.apkg)" at scale: a two-way deck of 2,000 cards, each with its own
// picture (8 KiB) and sound (16 KiB) in the media store, and a review log of 20,000 marks,
// exported from the deck's Export menu. Measured: the time from the menu item to the download
// (media read from IndexedDB, the collection written by sql.js and zipped by fflate in the
// Worker), the package's size, and the renderer process's peak resident memory over the export.
import { readFileSync, statSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser';
import { startServer, type RunningServer } from '../support/server';

const CARDS = 2_000;
const MARKS = 20_000;
const DAY = 86_400_000;

/** Peak and current resident memory of a process, in MiB (Linux /proc). */
function memoryOf(pid: number): { peak: number; now: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
  return { peak: field('VmHWM'), now: field('VmRSS') };
}

describe(`Anki package export, ${CARDS.toLocaleString('en')} cards with a picture and a sound each`, () => {
  let server: RunningServer | undefined;
  let dir = '';
  const lines: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hearth-apkg-export-'));
    server = await startServer();
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
    console.log(`\nAnki package export benchmark (Chromium):\n${lines.join('\n')}`);
  });

  it('exports the deck and reports time, size and memory', async () => {
    if (!server) throw new Error('server not started');
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
      page.setDefaultTimeout(300_000);
      await page.goto(`${server.url}/flashcards`);
      await page.evaluate(
        async ({ cards, marks, day }) => {
          localStorage.clear();
          const now = Date.now();
          const media: { hash: string; name: string; kind: string; field: string }[][] = [];
          const db = await new Promise<IDBDatabase>((resolve, reject) => {
            const open = indexedDB.open('hearth-media', 1);
            open.onupgradeneeded = () => open.result.createObjectStore('files', { keyPath: 'hash' });
            open.onsuccess = () => resolve(open.result);
            open.onerror = () => reject(open.error ?? new Error('indexedDB'));
          });
          const hex = (digest: ArrayBuffer) => Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
          const files: { hash: string; type: string; bytes: ArrayBuffer; size: number }[] = [];
          for (let i = 0; i < cards; i += 1) {
            const picture = crypto.getRandomValues(new Uint8Array(8 * 1024)).buffer;
            const sound = crypto.getRandomValues(new Uint8Array(16 * 1024)).buffer;
            const p = hex(await crypto.subtle.digest('SHA-256', picture));
            const s = hex(await crypto.subtle.digest('SHA-256', sound));
            files.push(
              { hash: p, type: 'image/webp', bytes: picture, size: picture.byteLength },
              { hash: s, type: 'audio/mpeg', bytes: sound, size: sound.byteLength },
            );
            media.push([
              { hash: p, name: `picture ${i}.webp`, kind: 'image', field: 'front' },
              { hash: s, name: `sound ${i}.mp3`, kind: 'sound', field: 'back' },
            ]);
          }
          const tx = db.transaction('files', 'readwrite');
          for (const file of files) tx.objectStore('files').put(file);
          await new Promise((resolve) => (tx.oncomplete = resolve));
          db.close();
          const deck = {
            id: 'deck-big',
            name: 'Big deck',
            author: '',
            description: '',
            sourceLang: 'de',
            targetLang: 'en',
            bidirectional: true,
            pronunciationField: false,
            genderField: false,
            exampleField: false,
            createdAt: new Date(now - 100 * day).toISOString(),
            type: 'deck',
            version: 1,
            cards: media.map((refs, i) => ({
              id: `c${i}`,
              front: `Wort ${i}`,
              back: `word ${i}`,
              pronunciation: '',
              gender: '',
              example: '',
              tags: [`group${i % 10}`],
              media: refs,
            })),
          };
          // Marks over 100 days, oldest first, spread over both directions of every card.
          const log: [string, number, string][] = [];
          for (let i = 0; i < marks; i += 1) {
            const card = i % cards;
            const key = i % (2 * cards) < cards ? `c${card}` : `c${card}:reverse`;
            log.push([key, now - 100 * day + Math.floor((i * 100 * day) / marks), i % 7 === 0 ? 'again' : 'good']);
          }
          localStorage.setItem('decks:index', JSON.stringify(['deck-big']));
          localStorage.setItem('decks:deck-big', JSON.stringify(deck));
          localStorage.setItem('reviews:deck-big', JSON.stringify({ type: 'reviews', version: 1, newPerDay: 20, seeds: {}, items: {}, log }));
        },
        { cards: CARDS, marks: MARKS, day: DAY },
      );
      await page.reload();
      const item = page.getByRole('listitem', { name: 'Big deck', exact: true });
      await item.waitFor();
      const cdp = await browser.newBrowserCDPSession();
      const info = (await cdp.send('SystemInfo.getProcessInfo')) as { processInfo: { type: string; id: number }[] };
      const renderers = info.processInfo.filter((process) => process.type === 'renderer').map((process) => process.id);
      const before = renderers.map(memoryOf);

      await item.getByRole('button', { name: 'Export Big deck', exact: true }).click();
      const started = Date.now();
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('menuitem', { name: 'Export as Anki package (.apkg)' }).click()]);
      const path = join(dir, 'big.apkg');
      await download.saveAs(path);
      const took = Date.now() - started;
      const said = (await page.getByRole('status').filter({ hasText: 'Exported “Big deck”' }).textContent()) ?? '';
      const after = renderers.map(memoryOf);
      lines.push(
        `  deck: ${CARDS.toLocaleString('en')} cards (two-way), ${(2 * CARDS).toLocaleString('en')} media files (${((CARDS * 24) / 1024).toFixed(0)} MiB), ${MARKS.toLocaleString('en')} marks`,
        `  export (menu item → download): ${took} ms; package ${(statSync(path).size / 1024 / 1024).toFixed(1)} MiB`,
        `  renderer peak resident memory: ${after.map((m, i) => `${m.peak.toFixed(0)} MiB (before: ${before[i]?.now.toFixed(0)} MiB)`).join(', ')}`,
        `  said: ${said}`,
      );
      expect(said).toContain(
        `${CARDS.toLocaleString('en')} notes, ${(2 * CARDS).toLocaleString('en')} cards, ${MARKS.toLocaleString('en')} reviews, ${(2 * CARDS).toLocaleString('en')} media files`,
      );
    } finally {
      await browser.close();
    }
  });
});

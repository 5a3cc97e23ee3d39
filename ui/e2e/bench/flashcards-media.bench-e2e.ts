// Pictures and sounds at scale: a 2,000-note .apkg with a picture and a sound of its own per note
// (made at bench time by the fixture script with the official Anki library, Pillow and lameenc;
// skipped, saying so, where that Python lacks them; set ANKI_PYTHON to one that has them) chosen
// in the import dialog. Measured: choosing the file to the dialog's preview (the Worker reads,
// checks and hashes every file), Import to the deck list (the files stored in IndexedDB, then the
// deck), the renderer's peak resident memory and the page's peak JS heap over the import, the
// media store's bytes, and the time from opening the practice screen to its first picture decoded.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser';
import { startServer, type RunningServer } from '../support/server';

const NOTES = 2_000;
const PYTHON = process.env.ANKI_PYTHON ?? 'python3';
const SCRIPT = fileURLToPath(new URL('../fixtures/anki/make_fixtures.py', import.meta.url));
const hasTools = spawnSync(PYTHON, ['-c', 'import anki, PIL, lameenc'], { stdio: 'ignore' }).status === 0;

function memoryOf(pid: number): { peak: number; now: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
  return { peak: field('VmHWM'), now: field('VmRSS') };
}

describe.skipIf(!hasTools)(`Anki package with media, ${NOTES.toLocaleString('en')} notes with a picture and a sound each`, () => {
  let server: RunningServer | undefined;
  let dir = '';
  const lines: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hearth-media-'));
    execFileSync(PYTHON, [SCRIPT, '--big-media', String(NOTES), join(dir, 'media.apkg')], { stdio: 'inherit' });
    server = await startServer();
  }, 600_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
    console.log(`\nAnki package with media benchmark (Chromium):\n${lines.join('\n')}`);
  });

  it('imports the package and shows the first card with its picture', async () => {
    if (!server) throw new Error('server not started');
    const bytes = readFileSync(join(dir, 'media.apkg'));
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.setDefaultTimeout(300_000);
      await page.goto(`${server.url}/flashcards`);
      await page.getByRole('heading', { name: 'Your Decks' }).waitFor();
      const cdp = await browser.newBrowserCDPSession();
      const info = (await cdp.send('SystemInfo.getProcessInfo')) as { processInfo: { type: string; id: number }[] };
      const renderers = info.processInfo.filter((process) => process.type === 'renderer').map((process) => process.id);
      const before = renderers.map(memoryOf);
      const pageCdp = await page.context().newCDPSession(page);
      let heapPeak = 0;
      const sampling = { on: true };
      const sampler = (async () => {
        while (sampling.on) {
          const { usedSize } = await pageCdp.send('Runtime.getHeapUsage');
          heapPeak = Math.max(heapPeak, usedSize);
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
      })();

      const dialog = page.getByRole('dialog', { name: 'Import decks' });
      await page.getByRole('button', { name: 'Import', exact: true }).click();
      await dialog.waitFor();
      const started = Date.now();
      await dialog.getByLabel('Or choose a file').setInputFiles({ name: 'media.apkg', mimeType: 'application/octet-stream', buffer: bytes });
      await dialog.getByText(`With ${NOTES.toLocaleString('en')} pictures and ${NOTES.toLocaleString('en')} sounds.`).waitFor();
      const read = Date.now() - started;
      const saving = Date.now();
      await dialog.getByRole('button', { name: 'Import', exact: true }).click();
      await dialog.waitFor({ state: 'hidden' });
      await page.getByRole('listitem', { name: 'Bilder und Töne', exact: true }).waitFor();
      const saved = Date.now() - saving;
      sampling.on = false;
      await sampler;
      const after = renderers.map(memoryOf);
      const heap = await page.evaluate(() => (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? NaN);

      // The first card with its picture: from opening the practice screen to the picture decoded.
      const id = await page.evaluate(() => (JSON.parse(localStorage.getItem('decks:index') ?? '[]') as string[])[0] ?? '');
      const opening = Date.now();
      await page.goto(`${server.url}/flashcards/${id}/practice`);
      await page.waitForFunction(() => {
        const image = document.querySelector('.flipcard__face--front img.card-pictures__image');
        return image instanceof HTMLImageElement && image.complete && image.naturalWidth > 0;
      });
      const firstPicture = Date.now() - opening;
      const mediaBytes = await page.evaluate(
        () =>
          new Promise<number>((resolve) => {
            const open = indexedDB.open('hearth-media');
            open.onsuccess = () => {
              let total = 0;
              const cursor = open.result.transaction('files').objectStore('files').openCursor();
              cursor.onsuccess = () => {
                const at = cursor.result;
                if (!at) return resolve(total);
                total += (at.value as { size: number }).size;
                at.continue();
              };
            };
          }),
      );
      lines.push(
        `  package: ${(bytes.length / 1024 / 1024).toFixed(1)} MiB, ${NOTES.toLocaleString('en')} notes, a picture and a sound each`,
        `  read in the Worker (choose file → preview, every file checked and hashed): ${read} ms`,
        `  import (Import → deck list, ${(2 * NOTES).toLocaleString('en')} files stored in IndexedDB): ${saved} ms`,
        `  renderer peak resident memory: ${after.map((m, i) => `${m.peak.toFixed(0)} MiB (before: ${before[i]?.now.toFixed(0)} MiB)`).join(', ')}`,
        `  page JS heap: peak ${(heapPeak / 1024 / 1024).toFixed(1)} MiB over the import, ${(heap / 1024 / 1024).toFixed(1)} MiB after it; media store: ${(mediaBytes / 1024 / 1024).toFixed(1)} MiB`,
        `  first card with its picture (open practice → picture decoded): ${firstPicture} ms`,
      );
      expect(mediaBytes).toBeGreaterThan(0);
    } finally {
      await browser.close();
    }
  });
});

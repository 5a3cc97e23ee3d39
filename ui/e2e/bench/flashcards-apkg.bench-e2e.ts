// Anki package import at scale: a 20,000-card .apkg (made at bench time by the fixture script with
// the official Anki library; skipped, saying so, where `python3 -c "import anki"` fails; set
// ANKI_PYTHON to a Python that has it) chosen in the import dialog. Measured: the time from
// choosing the file to the dialog's preview (read in the Worker), the time from Import to the
// deck list, the renderer process's peak resident memory over the import (the Worker runs in it),
// the page's peak JS heap over the import (sampled every 25 ms; the Worker's heap is its own, in
// the resident memory) and the page's JS heap after it.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser';
import { startServer, type RunningServer } from '../support/server';

const CARDS = 20_000;
const PYTHON = process.env.ANKI_PYTHON ?? 'python3';
const SCRIPT = fileURLToPath(new URL('../fixtures/anki/make_fixtures.py', import.meta.url));
const hasAnki = spawnSync(PYTHON, ['-c', 'import anki'], { stdio: 'ignore' }).status === 0;

/** Peak and current resident memory of a process, in MiB (Linux /proc). */
function memoryOf(pid: number): { peak: number; now: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;
  return { peak: field('VmHWM'), now: field('VmRSS') };
}

describe.skipIf(!hasAnki)(`Anki package import, ${CARDS.toLocaleString('en')} cards`, () => {
  let server: RunningServer | undefined;
  let dir = '';
  const lines: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hearth-apkg-'));
    execFileSync(PYTHON, [SCRIPT, '--big', String(CARDS), join(dir, 'big.apkg')], { stdio: 'inherit' });
    server = await startServer();
  }, 600_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
    console.log(`\nAnki package import benchmark (Chromium):\n${lines.join('\n')}`);
  });

  it('imports the package and reports time and memory', async () => {
    if (!server) throw new Error('server not started');
    const bytes = readFileSync(join(dir, 'big.apkg'));
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.setDefaultTimeout(300_000);
      await page.goto(`${server.url}/flashcards`);
      await page.evaluate(() => localStorage.clear());
      await page.reload();
      await page.getByRole('heading', { name: 'Your Decks' }).waitFor();
      const cdp = await browser.newBrowserCDPSession();
      const info = (await cdp.send('SystemInfo.getProcessInfo')) as { processInfo: { type: string; id: number }[] };
      const renderers = info.processInfo.filter((process) => process.type === 'renderer').map((process) => process.id);
      const before = renderers.map(memoryOf);

      // The page's JS heap, sampled until the import is done.
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
      await dialog.getByLabel('Or choose a file').setInputFiles({ name: 'big.apkg', mimeType: 'application/octet-stream', buffer: bytes });
      await dialog.getByText('1 deck to import:').waitFor();
      const read = Date.now() - started;
      const saving = Date.now();
      await dialog.getByRole('button', { name: 'Import', exact: true }).click();
      await dialog.waitFor({ state: 'hidden' });
      await page.getByRole('listitem', { name: 'Big deck', exact: true }).waitFor();
      const saved = Date.now() - saving;
      sampling.on = false;
      await sampler;
      const after = renderers.map(memoryOf);
      const heap = await page.evaluate(() => (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? NaN);
      const stored = await page.evaluate(() => Object.keys(localStorage).reduce((sum, key) => sum + key.length + (localStorage.getItem(key) ?? '').length, 0));
      lines.push(
        `  package: ${(bytes.length / 1024 / 1024).toFixed(1)} MiB, ${CARDS.toLocaleString('en')} cards`,
        `  read in the Worker (choose file → preview): ${read} ms`,
        `  import (Import → deck list):                ${saved} ms`,
        `  renderer peak resident memory: ${after.map((m, i) => `${m.peak.toFixed(0)} MiB (before: ${before[i]?.now.toFixed(0)} MiB)`).join(', ')}`,
        `  page JS heap: peak ${(heapPeak / 1024 / 1024).toFixed(1)} MiB over the import, ${(heap / 1024 / 1024).toFixed(1)} MiB after it; localStorage: ${(stored / 1024 / 1024).toFixed(1)} M characters`,
      );
      expect(read).toBeGreaterThan(0);
    } finally {
      await browser.close();
    }
  });
});

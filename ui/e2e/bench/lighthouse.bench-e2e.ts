// Lighthouse on every screen (the same list as the axe sweep: a seeded deck, its practice, the
// calendar editor with a feed), mobile and desktop presets, against the real binary in Debian's
// Chromium. Prints the four category scores and CLS per screen; the targets are 100 and ≤ 0.02.
// Performance depends on the machine's load: read it as a trend, not a verdict.
import { afterAll, beforeAll, describe, it } from 'vitest';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse, { desktopConfig, type Config, type Flags } from 'lighthouse';
import puppeteer from 'puppeteer-core';
import { CHROMIUM } from '../support/browser';
import { startServer, type RunningServer } from '../support/server';
import { startUpstream, WORK_FEED, type Upstream } from '../calendars-support/upstream';
import { screens, seedEntries } from '../support/screens';

// The flags the e2e suite uses; Lighthouse itself never downloads a browser.
const CHROME_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'] as const;

interface Row {
  screen: string;
  preset: string;
  scores: string[];
  cls: string;
}

describe('lighthouse', () => {
  let server: RunningServer | undefined;
  let upstream: Upstream | undefined;
  let chrome: chromeLauncher.LaunchedChrome | undefined;

  beforeAll(async () => {
    upstream = await startUpstream();
    upstream.set('/work.ics', { body: WORK_FEED });
    server = await startServer(['--allow-private-feeds', '--owner-name', 'Ada Lovelace']);
    chrome = await chromeLauncher.launch({ chromePath: process.env.CHROME_PATH ?? CHROMIUM, chromeFlags: CHROME_FLAGS });
  });
  afterAll(async () => {
    chrome?.kill();
    await server?.stop();
    await upstream?.close();
  });

  it('scores every screen on mobile and desktop', async () => {
    if (!server || !upstream || !chrome) throw new Error('not started');
    const origin = server.url;
    const feedUrl = upstream.url('/work.ics');
    // The decks and calendar live in localStorage: written once; Lighthouse is told to keep storage.
    const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chrome.port}` });
    const page = await browser.newPage();
    await page.goto(`${origin}/flashcards`);
    await page.evaluate((pairs: [string, string][]) => {
      localStorage.clear();
      for (const [key, value] of pairs) localStorage.setItem(key, value);
    }, seedEntries(feedUrl, origin));
    await page.close();
    await browser.disconnect();

    const rows: Row[] = [];
    const only = process.env.LIGHTHOUSE_SCREENS?.split(',');
    for (const screen of screens(feedUrl).filter((s) => !only || only.includes(s.name))) {
      for (const preset of ['mobile', 'desktop'] as const) {
        const flags: Flags = { port: chrome.port, output: 'json', logLevel: 'error', disableStorageReset: true };
        const config: Config | undefined = preset === 'desktop' ? desktopConfig : undefined;
        const result = await lighthouse(`${origin}${screen.path}`, flags, config);
        const lhr = result?.lhr;
        const scores = CATEGORIES.map((c) => {
          const score = lhr?.categories[c]?.score;
          return typeof score === 'number' ? String(Math.round(score * 100)) : '-';
        });
        const cls = lhr?.audits['cumulative-layout-shift']?.numericValue;
        rows.push({ screen: screen.name, preset, scores, cls: typeof cls === 'number' ? cls.toFixed(3) : '-' });
        const below = CATEGORIES.flatMap((c) =>
          Object.values(lhr?.audits ?? {})
            .filter((a) => a.score !== null && a.score < 1 && lhr?.categories[c]?.auditRefs.some((r) => r.id === a.id && r.weight > 0))
            .map((a) => `${c}: ${a.id}${a.displayValue ? ` (${a.displayValue})` : ''}`),
        );
        if (below.length > 0) console.log(`${screen.name} / ${preset}: ${below.join('; ')}`);
      }
    }
    const header = ['screen', 'preset', 'perf', 'a11y', 'best', 'seo', 'CLS'];
    const table = [header, ...rows.map((r) => [r.screen, r.preset, ...r.scores, r.cls])];
    const widths = header.map((_, i) => Math.max(...table.map((row) => (row[i] ?? '').length)));
    console.log(table.map((row) => row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ')).join('\n'));
  });
});

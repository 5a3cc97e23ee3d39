// The first response already holds the screen's frame and names its code (src/site/index.rs):
// with scripts off, every screen's page shows the header of layout/Layout.tsx with its tool
// current, and names (modulepreload, style preload) files that exist; once the app has rendered,
// its header and main are the frame's to the attribute, so React's first render replaces the
// frame with the same one, and nothing moves (layout-shift.e2e.ts measures that).
import { describe, expect, it } from 'vitest';
import { useBrowser } from './support/browser';
import { keyedSeedEntries, screens, seedEntries, useScreensSite } from './support/screens';

describe('the first frame', () => {
  const site = useScreensSite();
  const b = useBrowser();

  it('is in the page of every screen, with its files named, and is what the app draws', async () => {
    const { origin, feedUrl, keyedOrigin } = site();
    const off = await b.browser.newContext({ javaScriptEnabled: false });
    try {
      const bare = await off.newPage();
      const page = b.page;
      for (const [site, entries] of [
        [origin, seedEntries(feedUrl, origin)],
        [keyedOrigin, keyedSeedEntries()],
      ] as const) {
        await page.goto(`${site}/`);
        await page.evaluate((pairs: [string, string][]) => {
          for (const [key, value] of pairs) localStorage.setItem(key, value);
        }, entries);
      }
      for (const screen of screens(feedUrl)) {
        const address = `${screen.keyed ? keyedOrigin : origin}${screen.path}`;
        await bare.goto(address);
        const frame = await bare.evaluate(() => ({
          header: document.querySelector('#root > .app > header')?.outerHTML ?? '',
          skip: document.querySelector('#root > .app > a.skip-link')?.outerHTML ?? '',
          mainHtml: (document.querySelector('#root > .app > main')?.cloneNode(false) as Element | undefined)?.outerHTML ?? '',
          current: document.querySelector('.site-header__nav a.active')?.textContent ?? null,
          files: [...document.querySelectorAll<HTMLLinkElement>('link[rel=modulepreload], link[rel=preload], link[rel=stylesheet]')].map((l) => l.href),
        }));
        const tool = /^\/(flashcards|calendars)(\/|\?|$)/.exec(screen.path)?.[1];
        expect(frame.current, screen.name).toBe(tool ? `${tool[0]?.toUpperCase()}${tool.slice(1)}` : null);
        expect(frame.header, screen.name).toContain('site-header__home');
        // The tools' pages name their parts; the landing page needs none beyond the entry's.
        if (screen.path !== '/')
          expect(
            frame.files.some((f) => /RouterApp-.*\.js$/.test(f)),
            screen.name,
          ).toBe(true);
        for (const file of frame.files) expect((await fetch(file)).status, file).toBe(200);

        await page.goto(address);
        await page.locator(screen.ready).first().waitFor({ timeout: 15_000 });
        const drawn = await page.evaluate(() => ({
          header: document.querySelector('#root > .app > header')?.outerHTML ?? '',
          skip: document.querySelector('#root > .app > a.skip-link')?.outerHTML ?? '',
          mainHtml: (document.querySelector('#root > .app > main')?.cloneNode(false) as Element | undefined)?.outerHTML ?? '',
        }));
        expect(drawn, screen.name).toEqual({ header: frame.header, skip: frame.skip, mainHtml: frame.mainHtml });
      }
    } finally {
      await off.close();
    }
  });
});

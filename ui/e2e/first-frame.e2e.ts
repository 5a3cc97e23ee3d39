// The first response already holds the screen's frame and names its code (src/site/index.rs):
// with scripts off, every screen's page shows the header of layout/Layout.tsx with its tool
// current, and names (modulepreload, style preload) files that exist; once the app has rendered,
// its header and main are the frame's to the attribute, so React's first render replaces the
// frame with the same one, and nothing moves (layout-shift.e2e.ts measures that). A screen whose
// top comes in the page (src/routeParts.ts) has it in main, the start of what React draws there
// (each element the same, the last one's start), and names no files: its code loads after the
// first paint (src/boot.ts).
import { describe, expect, it } from 'vitest';
import { useBrowser } from './support/browser';
import { keyedSeedEntries, screens, seedEntries, useScreensSite } from './support/screens';

describe('the first frame', () => {
  const site = useScreensSite();
  const b = useBrowser();

  it('is in the page of every screen, with its files named, and is what the app draws', async () => {
    const { origin, feedUrl, keyedOrigin } = site();
    // A phone's size, for both: what the page paints first must be where the app draws it.
    const phone = { width: 390, height: 844 };
    const off = await b.browser.newContext({ javaScriptEnabled: false, viewport: phone });
    await b.page.setViewportSize(phone);
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
          top: document.querySelector('#root > .app > main')?.innerHTML ?? '',
          // Where each element of main is (by its path of child indexes), to the pixel.
          places: [...(document.querySelector('#root > .app > main')?.querySelectorAll('*') ?? [])].map((element) => {
            const path: number[] = [];
            for (let node: Element | null = element; node && node.tagName !== 'MAIN'; node = node.parentElement)
              path.unshift([...(node.parentElement?.children ?? [])].indexOf(node));
            const box = element.getBoundingClientRect();
            return { path, x: Math.round(box.x), y: Math.round(box.y) };
          }),
          current: document.querySelector('.site-header__nav a.active')?.textContent ?? null,
          files: [...document.querySelectorAll<HTMLLinkElement>('link[rel=modulepreload], link[rel=preload], link[rel=stylesheet]')].map((l) => l.href),
        }));
        const tool = /^\/(flashcards|calendars)(\/|\?|$)/.exec(screen.path)?.[1];
        expect(frame.current, screen.name).toBe(tool ? `${tool[0]?.toUpperCase()}${tool.slice(1)}` : null);
        expect(frame.header, screen.name).toContain('site-header__home');
        // The tools' pages name their parts, and the landing page the app's start; a screen whose
        // top is in the page, none.
        const named = (pattern: RegExp) => frame.files.some((f) => pattern.test(f));
        if (frame.top !== '') expect(named(/\.js$/), screen.name).toBe(false);
        else expect(named(screen.path === '/' ? /main-.*\.js$/ : /RouterApp-.*\.js$/), screen.name).toBe(true);
        for (const file of frame.files) expect((await fetch(file)).status, file).toBe(200);

        await page.goto(address);
        await page.locator(screen.ready).first().waitFor({ timeout: 15_000 });
        // Drawn by React, not the page's frame (whose top may hold the element waited for): the
        // nodes React makes carry its fiber.
        await page.waitForFunction(() => {
          const main = document.querySelector('#root > .app > main');
          return main !== null && Object.keys(main).some((key) => key.startsWith('__reactFiber'));
        });
        const drawn = await page.evaluate(() => ({
          header: document.querySelector('#root > .app > header')?.outerHTML ?? '',
          skip: document.querySelector('#root > .app > a.skip-link')?.outerHTML ?? '',
          mainHtml: (document.querySelector('#root > .app > main')?.cloneNode(false) as Element | undefined)?.outerHTML ?? '',
        }));
        expect(drawn, screen.name).toEqual({ header: frame.header, skip: frame.skip, mainHtml: frame.mainHtml });
        if (frame.top !== '') {
          const mismatch = await page.evaluate((top: string) => {
            const template = document.createElement('template');
            template.innerHTML = top;
            // `sent` is the start of `drawn`: the same element, its children the same but the
            // last, which is the start of the drawn one there.
            const startOf = (sent: Element, drawn: Element | null | undefined): string | null => {
              if (!drawn || (sent.cloneNode(false) as Element).outerHTML !== (drawn.cloneNode(false) as Element).outerHTML)
                return `${(sent.cloneNode(false) as Element).outerHTML} is drawn as ${drawn ? (drawn.cloneNode(false) as Element).outerHTML : 'nothing'}`;
              const children = [...sent.childNodes];
              for (const [at, child] of children.entries()) {
                const other = drawn.childNodes[at];
                if (at === children.length - 1 && child instanceof Element) return startOf(child, other instanceof Element ? other : null);
                // As written (an attribute's namespace aside: the parser gives svg's xmlns one, React not).
                const same =
                  child instanceof Element ? other instanceof Element && other.outerHTML === child.outerHTML : other?.textContent === child.textContent;
                if (!same)
                  return `${child instanceof Element ? child.outerHTML : (child.textContent ?? '')} is drawn as ${other instanceof Element ? other.outerHTML : (other?.textContent ?? 'nothing')}`;
              }
              return null;
            };
            // Text React writes in pieces (a sentence added to a paragraph) read as one.
            const main = document.querySelector('#root > .app > main')?.cloneNode(true) as Element | undefined;
            main?.normalize();
            const sent = document.createElement('main');
            sent.append(template.content);
            for (const attribute of main?.attributes ?? []) sent.setAttribute(attribute.name, attribute.value);
            return startOf(sent, main);
          }, frame.top);
          expect(mismatch, screen.name).toBeNull();
          const places = await page.evaluate(
            (paths: number[][]) =>
              paths.map((path) => {
                let node: Element | undefined | null = document.querySelector('#root > .app > main');
                for (const at of path) node = node?.children[at];
                const box = node?.getBoundingClientRect();
                return { path, x: Math.round(box?.x ?? -1), y: Math.round(box?.y ?? -1) };
              }),
            frame.places.map((p) => p.path),
          );
          expect(places, `${screen.name}: where the top's elements are`).toEqual(frame.places);
        }
      }
    } finally {
      await off.close();
    }
  });
});

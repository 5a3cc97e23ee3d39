// Pictures and sounds from Anki packages in Chromium: the fixtures (made with the official Anki
// library, in the current and legacy formats and as a .colpkg) imported; the summary naming what
// was kept and each file not kept with why; in practice the pictures decoded (naturalWidth > 0),
// the sound on the side where it is playing (the audio element plays and its time advances), at
// 0.75× and on repeat; a format Chromium cannot play said in words; everything still there after
// a reload; the deck's autoplay; the practice screen with a picture without axe violations in
// light and dark on a phone and a desktop, its play controls at least 44 px on the phone, and
// nothing moving when the picture arrives.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, useBrowser } from './support/browser';
import { useServer } from './support/server';
import { axe, describeViolations } from './support/axe';

const FIXTURES = fileURLToPath(new URL('./fixtures/anki/', import.meta.url));
const SKIPPED =
  'Skipped 2 pictures and sounds (the cards keep their text): “huge.png” is 20,000 × 20,000 pixels; pictures up to 10,000 pixels a side and 40 million pixels are kept; “missing.png” is not in the package.';

/** Imports the fixture `name` through the import dialog, on a page of the app with empty storage. */
async function importFixture(page: Page, base: string, name: string): Promise<void> {
  await page.goto(`${base}/flashcards`);
  await page.getByRole('heading', { name: 'Your Decks' }).waitFor();
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Import decks' });
  await dialog.getByLabel('Or choose a file').setInputFiles({ name, mimeType: 'application/octet-stream', buffer: readFileSync(FIXTURES + name) });
  await dialog.getByText('With 3 pictures and 3 sounds.').waitFor();
  await dialog.getByText(SKIPPED).waitFor();
  await dialog.getByRole('button', { name: 'Import', exact: true }).click();
  await dialog.waitFor({ state: 'hidden' });
}

/** The stored id of the deck named `name`. */
async function deckId(page: Page, name: string): Promise<string> {
  const id = await page.evaluate((wanted) => {
    const ids = JSON.parse(localStorage.getItem('decks:index') ?? '[]') as string[];
    return ids.find((one) => (JSON.parse(localStorage.getItem(`decks:${one}`) ?? '{}') as { name?: string }).name === wanted);
  }, name);
  if (!id) throw new Error(`no deck ${name}`);
  return id;
}

/** Whether the face's picture has decoded (complete with a width), waiting for it. */
async function pictureDecoded(page: Page, face: 'front' | 'back'): Promise<number> {
  const image = page.locator(`.flipcard__face--${face} img.card-pictures__image`).first();
  await image.waitFor({ state: 'attached' });
  await page.waitForFunction((element) => element instanceof HTMLImageElement && element.complete && element.naturalWidth > 0, await image.elementHandle());
  return image.evaluate((element) => (element as HTMLImageElement).naturalWidth);
}

/** Waits until the audio of `name` plays and its time has moved on; answers its rate and loop. */
async function playing(page: Page, name: string): Promise<{ rate: number; loop: boolean; time: number }> {
  const audio = page.locator(`audio[data-media-name="${name}"]`);
  await page.waitForFunction((element) => element instanceof HTMLAudioElement && !element.paused && element.currentTime > 0.1, await audio.elementHandle(), {
    timeout: 10_000,
  });
  return audio.evaluate((element) => {
    const media = element as HTMLAudioElement;
    return { rate: media.playbackRate, loop: media.loop, time: media.currentTime };
  });
}

describe('flashcards: pictures and sounds from Anki packages', () => {
  const url = useServer();
  const b = useBrowser();
  beforeEach(() => {
    b.page.setDefaultTimeout(20_000);
  });

  it.each(['current.apkg', 'legacy.apkg', 'collection.colpkg'])(
    'imports %s: pictures decode, the sound plays slower and on repeat, all kept after a reload',
    async (name) => {
      const page = b.page;
      await importFixture(page, url(), name);
      const spanish = await deckId(page, 'Spanish');
      await page.goto(url(`/flashcards/${spanish}/practice?tag=media`));
      // The picture is on the front (its Anki field is the front); the sound on the back.
      expect(await pictureDecoded(page, 'front')).toBe(96);
      await expect(page.getByRole('button', { name: 'Play “hola.mp3”' }).count()).resolves.toBe(0);
      await page.locator('.flipcard--current').click();
      const play = page.getByRole('button', { name: 'Play “hola.mp3”' });
      await play.click();
      expect(await playing(page, 'hola.mp3')).toMatchObject({ rate: 1, loop: false });
      // Stopped (it may have ended by itself: 1.5 s), then slower and on repeat.
      await page.locator('audio[data-media-name="hola.mp3"]').evaluate((audio) => (audio as HTMLAudioElement).pause());
      await page.getByRole('button', { name: 'Slower (0.75×)' }).click();
      await page.getByRole('button', { name: 'Repeat' }).click();
      await expect(page.getByRole('button', { name: 'Slower (0.75×)' }).getAttribute('aria-pressed')).resolves.toBe('true');
      await expect(page.getByRole('button', { name: 'Repeat' }).getAttribute('aria-pressed')).resolves.toBe('true');
      await page.getByRole('button', { name: 'Play “hola.mp3”' }).click();
      expect(await playing(page, 'hola.mp3')).toMatchObject({ rate: 0.75, loop: true });
      // On repeat it is still playing well past its 1.5 s (2 s at 0.75×).
      await page.waitForTimeout(3000);
      await expect(page.locator('audio[data-media-name="hola.mp3"]').evaluate((audio) => (audio as HTMLAudioElement).paused)).resolves.toBe(false);
      await page.getByRole('button', { name: 'Stop “hola.mp3”' }).click();
      await page.getByRole('button', { name: 'Play “hola.mp3”' }).waitFor();

      // Kept across a reload: the picture and the sound come from this browser's own store.
      await page.reload();
      expect(await pictureDecoded(page, 'front')).toBe(96);
      await page.locator('.flipcard--current').click();
      await page.getByRole('button', { name: 'Play “hola.mp3”' }).click();
      await playing(page, 'hola.mp3');
      // And a JPEG, the Straße picture with its umlaut-free word, the German sound on the back of "Hund".
      await page.goto(url(`/flashcards/${spanish}/practice?tag=broken`));
      expect(await pictureDecoded(page, 'front')).toBe(80);
      const child = await deckId(page, 'Parent::Child');
      await page.goto(url(`/flashcards/${child}/practice?tag=bild`));
      expect(await pictureDecoded(page, 'front')).toBe(120);
    },
  );

  it('says in words that Chromium cannot play a Speex file, instead of a silent button', async () => {
    const page = b.page;
    await importFixture(page, url(), 'current.apkg');
    const spanish = await deckId(page, 'Spanish');
    await page.goto(url(`/flashcards/${spanish}/practice?tag=speex`));
    await page.getByText('“gruß.spx”: this browser cannot play .spx files').waitFor();
    await expect(page.getByRole('button', { name: /Play “gruß\.spx”/ }).count()).resolves.toBe(0);
  });

  it('plays a card’s front sound by itself only where the deck says so', async () => {
    // The autoplay check alone lets media play without a click on the page.
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, '--autoplay-policy=no-user-gesture-required'], headless: true });
    try {
      const page = await browser.newPage();
      page.setDefaultTimeout(20_000);
      await importFixture(page, url(), 'legacy.apkg');
      const child = await deckId(page, 'Parent::Child');
      // "Hund": its sound is on the back; without autoplay nothing plays when the card comes up.
      await page.goto(url(`/flashcards/${child}/edit`));
      await page.getByRole('switch', { name: /Play sounds by themselves/ }).waitFor();
      const setAutoplay = (on: boolean) =>
        page.evaluate(
          ({ id, on }) => {
            const deck = JSON.parse(localStorage.getItem(`decks:${id}`) ?? '{}') as {
              autoplay?: boolean;
              cards: { front: string; media?: { field: string }[] }[];
            };
            deck.autoplay = on;
            // The sound moved to the front field, so it is the front's sound.
            for (const card of deck.cards) for (const ref of card.media ?? []) if (card.front === 'Hund') ref.field = 'front';
            localStorage.setItem(`decks:${id}`, JSON.stringify(deck));
          },
          { id: child, on },
        );
      await setAutoplay(false);
      await page.goto(url(`/flashcards/${child}/practice?tag=german`));
      const hund = async () => {
        for (let i = 0; i < 8; i += 1) {
          if ((await page.locator('.flipcard__face--front .flipcard__text').textContent()) === 'Hund') return;
          await page.getByRole('button', { name: 'Knew it' }).waitFor();
          await page.locator('.flipcard--current').click();
          await page.getByRole('button', { name: 'Knew it' }).click();
          await page.waitForTimeout(600);
        }
        throw new Error('the card Hund did not come up');
      };
      await hund();
      await page.getByRole('button', { name: 'Play “Hund bellt.mp3”' }).waitFor();
      await page.waitForTimeout(800);
      await expect(page.locator('audio[data-media-name="Hund bellt.mp3"]').evaluate((a) => (a as HTMLAudioElement).paused)).resolves.toBe(true);

      // The switch in the deck form, then practice: the sound plays when the card comes up.
      await page.goto(url(`/flashcards/${child}/edit`));
      await page.getByRole('switch', { name: /Play sounds by themselves/ }).check();
      await page.getByRole('button', { name: /^Save/ }).first().click();
      await page
        .getByText(/Deck saved/)
        .first()
        .waitFor();
      await expect(page.evaluate((id) => (JSON.parse(localStorage.getItem(`decks:${id}`) ?? '{}') as { autoplay?: boolean }).autoplay, child)).resolves.toBe(
        true,
      );
      await setAutoplay(true);
      await page.goto(url(`/flashcards/${child}/practice?tag=german`));
      await hund();
      await playing(page, 'Hund bellt.mp3');
    } finally {
      await browser.close();
    }
  });

  const DEVICES = [
    { name: 'phone', options: { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true } },
    { name: 'desktop', options: { viewport: { width: 1280, height: 800 } } },
  ] as const;
  for (const device of DEVICES) {
    for (const scheme of ['light', 'dark'] as const) {
      it(`the practice screen with a picture: axe 0, controls 44 px, nothing moves (${device.name}, ${scheme})`, async () => {
        const context: BrowserContext = await b.browser.newContext({ ...device.options, colorScheme: scheme });
        try {
          const page = await context.newPage();
          page.setDefaultTimeout(20_000);
          await importFixture(page, url(), 'current.apkg');
          const spanish = await deckId(page, 'Spanish');
          await page.addInitScript(() => {
            const shifts: { value: number; sources: string[] }[] = [];
            (window as unknown as { __shifts: typeof shifts }).__shifts = shifts;
            new PerformanceObserver((list) => {
              for (const entry of list.getEntries() as unknown as { value: number; hadRecentInput: boolean; sources: { node?: Node | null }[] }[]) {
                if (entry.hadRecentInput) continue;
                shifts.push({
                  value: entry.value,
                  sources: entry.sources.map((s) => (s.node instanceof Element ? `${s.node.tagName.toLowerCase()}.${[...s.node.classList].join('.')}` : '')),
                });
              }
            }).observe({ type: 'layout-shift', buffered: true });
          });
          await page.goto(url(`/flashcards/${spanish}/practice?tag=media`));
          await pictureDecoded(page, 'front');
          await page.waitForTimeout(1500);
          const shifts = await page.evaluate(() => (window as unknown as { __shifts: { value: number; sources: string[] }[] }).__shifts);
          const total = shifts.reduce((sum, shift) => sum + shift.value, 0);
          expect(total, JSON.stringify(shifts)).toBeLessThan(0.001);
          const found = describeViolations('practice, front with a picture', await axe(page));
          await page.locator('.flipcard--current').click();
          await page.getByRole('button', { name: 'Play “hola.mp3”' }).waitFor();
          await page.waitForTimeout(600);
          found.push(...describeViolations('practice, back with a sound', await axe(page)));
          expect(found, found.join('\n')).toEqual([]);
          for (const name of ['Play “hola.mp3”', 'Slower (0.75×)', 'Repeat']) {
            const box = await page.getByRole('button', { name }).boundingBox();
            expect(box?.height ?? 0, name).toBeGreaterThanOrEqual(device.name === 'phone' ? 44 : 36);
            expect(box?.width ?? 0, name).toBeGreaterThanOrEqual(device.name === 'phone' ? 44 : 36);
          }
        } finally {
          await context.close();
        }
      });
    }
  }
});

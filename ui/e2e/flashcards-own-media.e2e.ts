// The learner's own pictures and recordings in Chromium against the real binary, with Chromium's
// fake microphone (a steady tone; these flags for this file only): a voice clip recorded onto a
// card, a real PNG chosen and resized to at most 1024 px and shown again after a reload, a
// 20,000 × 20,000 PNG refused in words, a refused microphone said in words, record-and-compare
// playing the original and the attempt (the attempt never stored), the backup zip exported and
// imported into a fresh browser profile with the picture intact, and axe 0 light and dark on phone
// and desktop for the editor with media and the practice screen's compare controls, without layout
// shift.
import { readFile } from 'node:fs/promises';
import { crc32, deflateSync } from 'node:zlib';
import { strFromU8, unzipSync } from 'fflate';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axe, describeViolations } from './support/axe';
import { CHROMIUM, CHROMIUM_ARGS } from './support/browser';
import { useServer } from './support/server';
import { seed, type SeedDeck } from './flashcards-support/seed';

const FAKE_MEDIA = ['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', '--autoplay-policy=no-user-gesture-required'];

const DECK: SeedDeck = { id: 'deck-own', name: 'German animals', sourceLang: 'en', targetLang: 'de', cards: [{ front: 'dog', back: 'Hund' }] };

/** A real PNG: 8-bit RGB stripes, or (for the huge one) 1-bit grey, which packs 20,000² pixels small. */
function png(width: number, height: number, grey1bit = false): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = grey1bit ? 1 : 8;
  header[9] = grey1bit ? 0 : 2;
  const rowBytes = grey1bit ? Math.ceil(width / 8) : width * 3;
  const raw = Buffer.alloc((rowBytes + 1) * height);
  if (!grey1bit) {
    for (let y = 0; y < height; y += 1) {
      for (let x = 0; x < width; x += 1) {
        const at = y * (rowBytes + 1) + 1 + x * 3;
        raw[at] = (x * 255) / width;
        raw[at + 1] = (y * 255) / height;
        raw[at + 2] = x % 100 < 50 ? 200 : 40;
      }
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** What the media store holds: each file's type and size. */
function storedFiles(page: Page): Promise<{ type: string; size: number }[]> {
  return page.evaluate(
    () =>
      new Promise<{ type: string; size: number }[]>((resolve, reject) => {
        const open = indexedDB.open('hearth-media');
        open.onerror = () => reject(new Error('no media database'));
        open.onsuccess = () => {
          const db = open.result;
          if (!db.objectStoreNames.contains('files')) return resolve([]);
          const all = db.transaction('files').objectStore('files').getAll();
          all.onsuccess = () => resolve((all.result as { type: string; size: number }[]).map(({ type, size }) => ({ type, size })));
        };
      }),
  );
}

const naturalWidth = (page: Page, alt: RegExp) =>
  page.getByRole('img', { name: alt }).evaluate((img: HTMLImageElement) => img.decode().then(() => [img.naturalWidth, img.naturalHeight]));

describe('flashcards: the learner’s own pictures and recordings', () => {
  const url = useServer();
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, ...FAKE_MEDIA], headless: true });
  });
  afterAll(async () => {
    await browser.close();
  });

  async function withPage<T>(options: BrowserContextOptions, work: (page: Page, context: BrowserContext) => Promise<T>): Promise<T> {
    const context = await browser.newContext({ acceptDownloads: true, ...options });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      return await work(page, context);
    } finally {
      await context.close();
    }
  }

  const mediaDialog = (page: Page) => page.getByRole('dialog', { name: 'Pictures and sounds for card 1' });

  /** A deck whose card has a resized picture on the front and a recording on the back, saved. */
  async function cardWithMedia(page: Page) {
    await seed(page, url(), [DECK]);
    await page.goto(url(`/flashcards/${DECK.id}/edit`));
    await page.getByRole('button', { name: 'Pictures and sounds of card 1' }).click();
    const dialog = mediaDialog(page);
    await dialog.waitFor();

    // A 20,000 × 20,000 PNG: refused from its header, before anything decodes it.
    await dialog.locator('input[data-media-input="picture"]').setInputFiles({ name: 'huge.png', mimeType: 'image/png', buffer: png(20_000, 20_000, true) });
    await dialog
      .getByRole('alert')
      .filter({
        hasText:
          'This picture is 20,000 × 20,000 pixels, too large to open on this device; pictures up to 16,384 pixels on a side and 50 megapixels can be added.',
      })
      .waitFor();

    await dialog.locator('input[data-media-input="picture"]').setInputFiles({ name: 'Hund im Schnee.png', mimeType: 'image/png', buffer: png(2000, 1500) });
    await dialog.getByRole('status').filter({ hasText: 'Picture added to the front of card 1: 1024 × 768 pixels, kept as WebP.' }).waitFor();

    await dialog.getByRole('button', { name: 'Record your voice' }).click();
    await dialog
      .getByRole('timer')
      .filter({ hasText: /Recording 0:01 of 1:00/ })
      .waitFor();
    await page.waitForTimeout(1000);
    await dialog.getByRole('button', { name: 'Stop recording' }).click();
    await dialog
      .getByRole('status')
      .filter({ hasText: /Recording of 0:0[1-3] added to the back of card 1\./ })
      .waitFor();
    await dialog.getByRole('button', { name: 'Done' }).click();
    await mediaDialog(page).waitFor({ state: 'detached' });
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Pictures and sounds of card 1');
    await page.getByRole('button', { name: 'Save Deck' }).click();
    await page
      .getByText(/Deck saved at/)
      .first()
      .waitFor({ state: 'attached' });
  }

  it('adds a resized picture and a recording to a card, kept after a reload; a huge PNG is refused in words', async () => {
    await withPage({}, async (page) => {
      await cardWithMedia(page);
      expect(await naturalWidth(page, /Picture on the front of card 1: Hund im Schnee\.webp/)).toEqual([1024, 768]);
      await page.getByRole('button', { name: /^Play recording-[0-9a-f]{10}\.webm$/ }).waitFor();
      const files = await storedFiles(page);
      expect(files.map((file) => file.type).sort()).toEqual(['audio/webm;codecs=opus', 'image/webp']);
      expect(files.every((file) => file.size > 0)).toBe(true);

      await page.reload();
      expect(await naturalWidth(page, /Picture on the front of card 1: Hund im Schnee\.webp/)).toEqual([1024, 768]);
      const stored = await page.evaluate(
        (id) => JSON.parse(localStorage.getItem(`decks:${id}`) ?? '{}') as { cards: { media: { kind: string; field: string }[] }[] },
        DECK.id,
      );
      expect(stored.cards[0]?.media.map((ref) => [ref.kind, ref.field])).toEqual([
        ['image', 'front'],
        ['sound', 'back'],
      ]);

      // Removing the picture removes its reference from the card.
      await page.getByRole('button', { name: 'Remove Hund im Schnee.webp from the front of card 1' }).click();
      await page.getByRole('img', { name: /Picture on the front/ }).waitFor({ state: 'detached' });
      await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Pictures and sounds of card 1');
    });
  });

  it('says a refused microphone in words', async () => {
    await withPage({}, async (page, context) => {
      await context.addInitScript(() => {
        navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException('Permission denied', 'NotAllowedError'));
      });
      await seed(page, url(), [DECK]);
      await page.goto(url(`/flashcards/${DECK.id}/edit`));
      await page.getByRole('button', { name: 'Pictures and sounds of card 1' }).click();
      await mediaDialog(page).getByRole('button', { name: 'Record your voice' }).click();
      await mediaDialog(page)
        .getByRole('alert')
        .filter({ hasText: "The microphone was refused, so nothing was recorded. To record, allow the microphone for this site in the browser's settings." })
        .waitFor();
    });
  });

  it('records the learner’s attempt beside the card’s recording and plays both, keeping the attempt in memory only', async () => {
    await withPage({}, async (page) => {
      await cardWithMedia(page);
      await page.goto(url(`/flashcards/${DECK.id}/practice`));
      const compare = page.getByRole('group', { name: 'Compare your pronunciation' });
      // The recording is on the back: hidden (its room kept) until the card shows its back.
      const kept = page.getByRole('group', { name: 'Compare your pronunciation', includeHidden: true });
      await kept.waitFor({ state: 'attached' });
      expect(await kept.isVisible()).toBe(false);
      await page.keyboard.press('Space');
      await compare.waitFor();
      await compare.getByRole('button', { name: 'Record my attempt' }).click();
      await compare
        .getByRole('timer')
        .filter({ hasText: /0:01 of 1:00/ })
        .waitFor();
      await compare.getByRole('button', { name: 'Stop recording' }).click();
      await compare.getByRole('button', { name: 'Record again' }).waitFor();

      const playMine = compare.getByRole('button', { name: 'Play mine' });
      await expect.poll(() => playMine.isEnabled()).toBe(true);
      await playMine.click();
      await expect.poll(() => playMine.getAttribute('aria-pressed')).toBe('true');
      const playOriginal = compare.getByRole('button', { name: 'Play original' });
      await playOriginal.click();
      await expect.poll(() => playOriginal.getAttribute('aria-pressed')).toBe('true');
      expect(await compare.locator('.play-media__problem').count()).toBe(0);
      // Only the card's own two files are stored: the attempt is not.
      expect((await storedFiles(page)).length).toBe(2);
    });
  });

  it('exports a zip backup with the picture and imports it into a fresh browser profile', async () => {
    const zip = await withPage({}, async (page) => {
      await cardWithMedia(page);
      await page.goto(url('/flashcards'));
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export', exact: true }).click()]);
      expect(download.suggestedFilename()).toMatch(/^hearth-decks-\d{4}-\d{2}-\d{2}\.zip$/);
      const backup = await readFile(await download.path());

      // Anki text: a zip of the text and its files, each field naming its files as Anki does.
      const [anki] = await Promise.all([
        page.waitForEvent('download'),
        page
          .getByRole('button', { name: 'Export German animals', exact: true })
          .click()
          .then(() => page.getByRole('menuitem', { name: 'Export as Anki text' }).click()),
      ]);
      expect(anki.suggestedFilename()).toBe('german-animals.zip');
      const entries = unzipSync(new Uint8Array(await readFile(await anki.path())));
      const names = Object.keys(entries).sort();
      expect(names[0]).toBe('Hund im Schnee.webp');
      expect(names[1]).toBe('german-animals.txt');
      expect(names[2]).toMatch(/^recording-[0-9a-f]{10}\.webm$/);
      const text = strFromU8(entries['german-animals.txt'] ?? new Uint8Array());
      expect(text).toContain('#html:true');
      expect(text).toContain(`"dog <img src=""Hund im Schnee.webp"">"\tHund [sound:${names[2] ?? ''}]`);
      return backup;
    });
    expect([...zip.subarray(0, 4)]).toEqual([0x50, 0x4b, 3, 4]);

    await withPage({}, async (page) => {
      await page.goto(url('/flashcards'));
      await page.getByRole('button', { name: 'Import', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Import decks' });
      await dialog.getByLabel('Or choose a file').setInputFiles({ name: 'backup.zip', mimeType: 'application/zip', buffer: zip });
      await dialog.getByText('The backup carries 2 picture(s) and sound(s).').waitFor();
      await dialog.getByRole('button', { name: 'Import', exact: true }).click();
      await dialog.waitFor({ state: 'hidden' });
      await page.getByRole('link', { name: 'Edit German animals' }).click();
      expect(await naturalWidth(page, /Picture on the front of card 1: Hund im Schnee\.webp/)).toEqual([1024, 768]);
      expect((await storedFiles(page)).map((file) => file.type).sort()).toEqual(['audio/webm;codecs=opus', 'image/webp']);
    });
  });

  it('meets axe in light and dark on phone and desktop, with no layout shift, on the editor with media and the compare controls', async () => {
    const devices = [
      { name: 'phone', options: { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true } },
      { name: 'desktop', options: { viewport: { width: 1280, height: 800 } } },
    ] as const;
    const found: string[] = [];
    // Each device its own profile (a phone's coarse pointer is the context's), the media made once
    // in it, then both schemes.
    for (const device of devices) {
      await withPage(device.options, async (page, context) => {
        await cardWithMedia(page);
        await context.addInitScript(() => {
          const shifts: number[] = [];
          (window as unknown as { __shifts: number[] }).__shifts = shifts;
          new PerformanceObserver((list) => {
            for (const entry of list.getEntries() as unknown as { value: number; hadRecentInput: boolean }[])
              if (!entry.hadRecentInput) shifts.push(entry.value);
          }).observe({ type: 'layout-shift', buffered: true });
        });
        const shift = async (name: string) => {
          await page.waitForTimeout(500);
          const total = (await page.evaluate(() => (window as unknown as { __shifts: number[] }).__shifts)).reduce((a, b) => a + b, 0);
          if (total >= 0.01) found.push(`${name}: layout shift ${total.toFixed(4)}`);
        };
        for (const scheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme: scheme });
          const name = `${device.name} ${scheme}`;
          await page.goto(url(`/flashcards/${DECK.id}/edit`));
          await naturalWidth(page, /Picture on the front of card 1/);
          await shift(`${name} editor`);
          found.push(...describeViolations(`${name} editor with media`, await axe(page)));
          const minimum = device.name === 'phone' ? 44 : 36;
          const play = await page.getByRole('button', { name: /^Play recording-/ }).boundingBox();
          if (!play || play.height < minimum) found.push(`${name}: the play button is ${play?.height ?? 0} px tall`);
          await page.getByRole('button', { name: 'Pictures and sounds of card 1' }).click();
          await mediaDialog(page).waitFor();
          await page.waitForTimeout(300);
          found.push(...describeViolations(`${name} pictures and sounds dialog`, await axe(page)));
          const record = await mediaDialog(page).getByRole('button', { name: 'Record your voice' }).boundingBox();
          if (!record || record.height < minimum) found.push(`${name}: the record button is ${record?.height ?? 0} px tall`);
          await page.keyboard.press('Escape');
          await page.goto(url(`/flashcards/${DECK.id}/practice`));
          await page.getByRole('group', { name: 'Compare your pronunciation', includeHidden: true }).waitFor({ state: 'attached' });
          await shift(`${name} practice`);
          await page.keyboard.press('Space');
          await page.getByRole('button', { name: 'Play original' }).waitFor();
          await page.waitForTimeout(700);
          found.push(...describeViolations(`${name} practice with compare controls`, await axe(page)));
          const mine = await page.getByRole('button', { name: 'Record my attempt' }).boundingBox();
          if (!mine || mine.height < minimum) found.push(`${name}: the compare record button is ${mine?.height ?? 0} px tall`);
        }
      });
    }
    expect(found, found.join('\n')).toEqual([]);
  });
});

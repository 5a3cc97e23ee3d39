// The owner edits the site on /owner (issue 37) in Chromium against the real binary: the name, an
// About text with a link, the links and a picture (an 800×600 PNG, cut square and made 512 px
// WebP in the browser); the landing page and its About dialog show them on the next load and in
// the open app, with the name in the page from the first paint and nothing moving; a refused link
// is said on its field; "Use the defaults" brings the flags back. axe finds nothing on the editor
// and on the About dialog with the owner's text, light and dark, phone and desktop, and every
// control of the editor is at least 44 px high on a phone.
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { axe, describeViolations } from './support/axe';
import { useBrowser } from './support/browser';
import { useServer } from './support/server';

const KEY = 'site-s3cret';
const ABOUT = 'I write programs for the Analytical Engine.\n\nMy notes are at https://example.org/ada, with the rest.';

const DEVICES = [
  { name: 'phone', options: { viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true } },
  { name: 'desktop', options: { viewport: { width: 1280, height: 800 } } },
] as const;

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = (CRC_TABLE[(c ^ byte) & 0xff] ?? 0) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A `width`×`height` RGB PNG: red on the left third, blue in the middle, green on the right. */
function png(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y += 1) {
    const row = y * (width * 3 + 1);
    for (let x = 0; x < width; x += 1) {
      const third = Math.floor((x * 3) / width);
      rows.set(third === 0 ? [220, 30, 30] : third === 1 ? [30, 30, 220] : [30, 180, 30], row + 1 + x * 3);
    }
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

describe('the owner edits the site', () => {
  const url = useServer(['--publish-key', KEY, '--owner-name', 'Flag Name', '--spotify-url', 'https://open.spotify.com/user/flag']);
  const b = useBrowser();

  const siteRegion = (page: Page) => page.getByRole('region', { name: 'Site', exact: true });

  async function keyed(context: BrowserContext) {
    await context.addInitScript((key: string) => localStorage.setItem('site:key', key), KEY);
  }

  async function profile(): Promise<Record<string, unknown>> {
    return (await (await fetch(url('/api/site'))).json()) as Record<string, unknown>;
  }

  it('saves the name, the About text, the links and a picture, and the landing page shows them', async () => {
    const page = b.page;
    await keyed(b.context);
    await page.goto(url('/owner'));
    const editor = siteRegion(page);
    await editor.waitFor();
    await expect(editor.getByLabel('Name', { exact: true }).inputValue()).resolves.toBe('Flag Name');
    await expect(editor.getByLabel('Spotify link').inputValue()).resolves.toBe('https://open.spotify.com/user/flag');

    // Chosen or taken with the camera: both file inputs take images, the second asks for the camera.
    const inputs = editor.locator('input[type=file]');
    await expect(inputs.evaluateAll((all) => all.map((i) => [i.getAttribute('accept'), i.getAttribute('capture')]))).resolves.toEqual([
      ['image/*', null],
      ['image/*', 'user'],
    ]);

    // A refused link is said on its field, which takes the focus; nothing is saved.
    await editor.getByLabel('Spotify link').fill('javascript:alert(1)');
    await editor.getByRole('button', { name: 'Save' }).click();
    await editor.getByText('The Spotify link must be an address beginning with https:// or http://, or left empty.').waitFor();
    await expect(editor.getByLabel('Spotify link').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.evaluate(() => document.activeElement?.getAttribute('type'))).resolves.toBe('url');
    expect((await profile()).spotifyUrl).toBe('https://open.spotify.com/user/flag');

    await editor.getByLabel('Name', { exact: true }).fill('Ada Lovelace');
    await editor.getByLabel('About', { exact: true }).fill(ABOUT);
    await editor.getByText('100 of 4,000 characters', { exact: false }).waitFor();
    await editor.getByLabel('Spotify link').fill('');
    await editor.getByLabel('Beehive link').fill('https://beehive.example/ada');
    await editor.getByText('Unsaved changes').waitFor();
    await editor.getByRole('button', { name: 'Save' }).click();
    await editor.getByText('Saved. The landing page shows it now.').waitFor();
    await expect(editor.getByText('Unsaved changes').count()).resolves.toBe(0);

    // The picture: 800×600 in, the middle 600×600 out at 512 px, as WebP.
    const before = (await profile()).avatarUrl;
    await inputs.first().setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: png(800, 600) });
    await editor.getByText('Picture saved. The landing page shows it now.').waitFor();
    const saved = await profile();
    expect(saved.avatarUrl).not.toBe(before);
    expect(saved).toMatchObject({ name: 'Ada Lovelace', about: ABOUT, spotifyUrl: null, beehiveUrl: 'https://beehive.example/ada' });
    const avatar = await fetch(url(String(saved.avatarUrl)));
    expect(avatar.headers.get('content-type')).toBe('image/webp');
    expect(avatar.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const preview = editor.getByRole('img', { name: 'Profile picture' });
    await expect(preview.getAttribute('src')).resolves.toBe(saved.avatarUrl);
    await expect(preview.evaluate((img: HTMLImageElement) => (img.complete ? [img.naturalWidth, img.naturalHeight] : null))).resolves.toEqual([512, 512]);
    // The middle third (blue) is the middle of the square; the red and green edges are cut to a sliver.
    const colours = await preview.evaluate((img: HTMLImageElement) => {
      const canvas = document.createElement('canvas');
      canvas.width = 512;
      canvas.height = 512;
      const context = canvas.getContext('2d');
      if (!context) return null;
      context.drawImage(img, 0, 0);
      return [2, 256, 509].map((x) => Array.from(context.getImageData(x, 256, 1, 1).data.slice(0, 3)));
    });
    expect(colours?.[1]?.[2]).toBeGreaterThan(150);
    expect(colours?.[0]?.[0]).toBeGreaterThan(150);
    expect(colours?.[2]?.[1]).toBeGreaterThan(120);

    // The open app shows the save without a reload.
    await page.locator('.site-header__home').click();
    await page.getByRole('heading', { level: 1, name: 'Ada Lovelace' }).waitFor();

    // A fresh load: the name is in the page the server sends, so no placeholder ever shows.
    const html = await (await fetch(url('/'))).text();
    expect(html).toContain('<title>Ada Lovelace</title>');
    await page.goto(url('/'));
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Ada Lovelace');
    await expect(page.title()).resolves.toBe('Ada Lovelace');
    const links = page.getByRole('list', { name: 'Links' });
    await links.waitFor();
    await expect(links.getByRole('link').allTextContents()).resolves.toEqual(['Calendars', 'Beehive', 'Flashcards']);
    await expect(page.getByRole('img', { name: 'Profile picture' }).getAttribute('src')).resolves.toBe(saved.avatarUrl);

    // The About dialog: the owner's paragraphs, the address a link, no built-in sentence.
    await page.getByRole('button', { name: 'About' }).click();
    const dialog = page.getByRole('dialog', { name: 'About' });
    await dialog.waitFor({ state: 'visible' });
    await expect(dialog.locator('p').allInnerTexts()).resolves.toEqual([
      'I write programs for the Analytical Engine.',
      'My notes are at https://example.org/ada, with the rest.',
    ]);
    const link = dialog.getByRole('link', { name: 'https://example.org/ada' });
    await expect(link.getAttribute('href')).resolves.toBe('https://example.org/ada');
    await expect(link.getAttribute('rel')).resolves.toBe('noopener noreferrer');
    await expect(dialog.textContent()).resolves.not.toContain('This is the personal website of');
  });

  it('keeps the landing page still after a save, on a phone and a desktop', async () => {
    for (const device of DEVICES) {
      const context = await b.browser.newContext({ ...device.options, serviceWorkers: 'block' });
      try {
        await context.addInitScript(() => {
          const shifts: number[] = [];
          (window as unknown as { __shifts: number[] }).__shifts = shifts;
          new PerformanceObserver((list) => {
            for (const entry of list.getEntries() as unknown as { value: number; hadRecentInput: boolean }[]) {
              if (!entry.hadRecentInput) shifts.push(entry.value);
            }
          }).observe({ type: 'layout-shift', buffered: true });
        });
        const page = await context.newPage();
        await page.goto(url('/'));
        await page.getByRole('list', { name: 'Links' }).waitFor();
        await page.waitForTimeout(1500);
        const total = await page.evaluate(() => (window as unknown as { __shifts: number[] }).__shifts.reduce((a, b) => a + b, 0));
        expect(total, device.name).toBeLessThan(0.001);
      } finally {
        await context.close();
      }
    }
  });

  it('has no axe violations on the editor and the About dialog, light and dark, phone and desktop', async () => {
    const found: string[] = [];
    for (const device of DEVICES) {
      for (const scheme of ['light', 'dark'] as const) {
        const context = await b.browser.newContext({ ...device.options, colorScheme: scheme });
        try {
          await keyed(context);
          const page = await context.newPage();
          await page.goto(url('/owner'));
          const editor = siteRegion(page);
          await editor.waitFor();
          // A field error showing too, so its colours are judged.
          await editor.getByLabel('Beehive link').fill('not an address');
          await editor.getByRole('button', { name: 'Save' }).click();
          await editor.getByText(/^The Beehive link must be/).waitFor();
          await page.waitForTimeout(300);
          found.push(...describeViolations(`owner site editor, ${device.name}, ${scheme}`, await axe(page)));
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          expect(overflow, `horizontal overflow on ${device.name}`).toBeLessThanOrEqual(0);
          if (device.name === 'phone') {
            const small = await editor
              .locator('button, input:not([type=file]), textarea')
              .evaluateAll((all) =>
                all.map((e) => [e.textContent.trim() || e.getAttribute('id'), e.getBoundingClientRect().height] as const).filter(([, h]) => h < 44),
              );
            expect(small, `controls under 44 px on a phone (${scheme})`).toEqual([]);
          }

          await page.goto(url('/'));
          await page.getByRole('button', { name: 'About' }).click();
          await page.getByRole('dialog', { name: 'About' }).getByRole('link').waitFor();
          await page.waitForTimeout(300);
          found.push(...describeViolations(`About dialog with the owner's text, ${device.name}, ${scheme}`, await axe(page)));
        } finally {
          await context.close();
        }
      }
    }
    expect(found, found.join('\n')).toEqual([]);
  });

  it('goes back to the flags with "Remove picture" and "Use the defaults", asked first', async () => {
    const page = b.page;
    const found: string[] = [];
    await keyed(b.context);
    await page.goto(url('/owner'));
    const editor = siteRegion(page);
    await editor.waitFor();
    await editor.getByRole('button', { name: 'Remove picture' }).click();
    await editor.getByText('Picture removed: the landing page shows the first one again.').waitFor();
    expect((await profile()).name).toBe('Ada Lovelace');
    await expect(editor.getByRole('button', { name: 'Remove picture' }).count()).resolves.toBe(0);
    // Asked first: "Keep my changes" (focused, and Escape's answer) keeps them.
    await editor.getByRole('button', { name: 'Use the defaults' }).click();
    const question = page.getByRole('dialog', { name: 'Use the defaults?' });
    await question.waitFor();
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Keep my changes');
    found.push(...describeViolations('Use the defaults?', await axe(page)));
    await page.keyboard.press('Escape');
    await question.waitFor({ state: 'hidden' });
    expect((await profile()).about).toBe(ABOUT);
    await editor.getByRole('button', { name: 'Use the defaults' }).click();
    await question.getByRole('button', { name: 'Use the defaults' }).click();
    await editor.getByText("Back to the server's settings: the landing page shows them now.").waitFor();
    await expect(editor.getByLabel('Name', { exact: true }).inputValue()).resolves.toBe('Flag Name');
    expect(await profile()).toMatchObject({ name: 'Flag Name', about: null, spotifyUrl: 'https://open.spotify.com/user/flag', beehiveUrl: null });
    await page.goto(url('/'));
    await page.getByRole('button', { name: 'About' }).click();
    await expect(page.getByRole('dialog', { name: 'About' }).textContent()).resolves.toContain('This is the personal website of Flag Name');
    expect(found, found.join('\n')).toEqual([]);
  });
});

// The landing page in Chromium against the real binary: the configured name, the four links,
// the About dialog, and navigation into both tools.
import { describe, expect, it } from 'vitest';
import { useBrowser } from './support/browser';
import { startServer, useServer } from './support/server';

describe('landing page', () => {
  const url = useServer(['--owner-name', 'Ada Lovelace', '--spotify-url', 'https://open.spotify.com/user/ada'], {
    HEARTH_BEEHIVE_URL: 'https://beehive.example/ada',
  });
  const b = useBrowser();

  it('shows the configured name in the first paint, never a placeholder', async () => {
    const response = await fetch(url());
    const html = await response.text();
    expect(html).toContain('<title>Ada Lovelace</title>');
    await b.page.goto(url());
    await expect(b.page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Ada Lovelace');
    await expect(b.page.title()).resolves.toBe('Ada Lovelace');
    const avatar = b.page.getByRole('img', { name: 'Profile picture' });
    await expect(avatar.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).resolves.toBe(true);
  });

  it('shows the four links with the configured addresses', async () => {
    await b.page.goto(url());
    const list = b.page.getByRole('list', { name: 'Links' });
    // Read once drawn: the first render is a transition (main.tsx), not done by the load event.
    await list.waitFor();
    const links = list.getByRole('link');
    await expect(links.allTextContents()).resolves.toEqual(['Spotify', 'Calendars', 'Beehive', 'Flashcards']);
    await expect(b.page.getByRole('link', { name: 'Spotify' }).getAttribute('href')).resolves.toBe('https://open.spotify.com/user/ada');
    await expect(b.page.getByRole('link', { name: 'Beehive' }).getAttribute('href')).resolves.toBe('https://beehive.example/ada');
  });

  it('opens About and closes it with Escape and by clicking outside', async () => {
    await b.page.goto(url());
    await b.page.getByRole('button', { name: 'About' }).click();
    const dialog = b.page.getByRole('dialog', { name: 'About' });
    await dialog.waitFor({ state: 'visible' });
    await expect(dialog.textContent()).resolves.toContain('Ada Lovelace');
    // One spelling across the app: "Practice" (the spec's), never "practise".
    await expect(dialog.textContent()).resolves.toContain('practice a language with flashcards');
    await b.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });

    await b.page.getByRole('button', { name: 'About' }).click();
    await dialog.waitFor({ state: 'visible' });
    await b.page.mouse.click(5, 5);
    await dialog.waitFor({ state: 'hidden' });
  });

  it('navigates to the flashcards and calendars tools', async () => {
    await b.page.goto(url());
    await b.page.getByRole('link', { name: 'Flashcards' }).last().click();
    await b.page.waitForURL(`${url()}/flashcards`);
    await b.page.getByRole('heading', { name: 'Your Decks' }).waitFor();

    await b.page.goto(url());
    await b.page.getByRole('link', { name: 'Calendars' }).last().click();
    await b.page.waitForURL(`${url()}/calendars`);
    await b.page.getByRole('heading', { name: 'Calendars' }).waitFor();
  });

  it('works on a 360 px wide phone without horizontal scrolling', async () => {
    const phone = await b.browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    const page = await phone.newPage();
    await page.goto(url());
    await page.getByRole('heading', { level: 1 }).waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await phone.close();
  });

  it('hides the external links when they are not configured', async () => {
    const plain = await startServer();
    try {
      await b.page.goto(plain.url);
      const list = b.page.getByRole('list', { name: 'Links' });
      await list.waitFor();
      const links = list.getByRole('link');
      await expect(links.allTextContents()).resolves.toEqual(['Calendars', 'Flashcards']);
    } finally {
      await plain.stop();
    }
  });
});

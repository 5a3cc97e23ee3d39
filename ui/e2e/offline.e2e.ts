// Offline: once visited, the landing page and the flashcard tool load and work with the network
// off (the service worker serves the app); the server still sees no stale-forever caching.
import { describe, expect, it } from 'vitest';
import { deckRecord } from './flashcards-support/seed';
import { useBrowser } from './support/browser';
import { useServer } from './support/server';

const deck = deckRecord({
  id: '6f1d2c3b-0000-4000-8000-000000000001',
  name: 'Train vocabulary',
  author: 'Ada',
  cards: [{ front: 'train', back: 'le train', gender: 'm' }],
}) as { id: string };

describe('offline', () => {
  const url = useServer(['--owner-name', 'Ada Lovelace']);
  const b = useBrowser();

  it('serves the service worker and manifest without long-lived caching', async () => {
    const sw = await fetch(`${url()}/sw.js`);
    expect(sw.status).toBe(200);
    expect(sw.headers.get('cache-control')).toBe('no-cache');
    expect(sw.headers.get('content-type')).toContain('javascript');
    const manifest = await fetch(`${url()}/manifest.webmanifest`);
    expect(manifest.status).toBe(200);
    const body = (await manifest.json()) as { name: string; start_url: string };
    expect(body.start_url).toBe('/');
  });

  it('loads the landing page and practises a deck with the network off', async () => {
    const { page, context } = b;
    await page.goto(url());
    await page.getByRole('heading', { level: 1, name: 'Ada Lovelace' }).waitFor();
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
    // The first visit installed the worker; the second load is one it controls.
    await page.reload();
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    await page.evaluate((d) => {
      localStorage.setItem(`decks:${d.id}`, JSON.stringify(d));
      localStorage.setItem('decks:index', JSON.stringify([d.id]));
    }, deck);

    await context.setOffline(true);
    await page.goto(`${url()}/flashcards`);
    await page.getByRole('heading', { name: 'Your Decks' }).waitFor();
    await page.getByText('Train vocabulary').first().waitFor();

    await page.goto(`${url()}/flashcards/${deck.id}/practice`);
    await page.getByText('train', { exact: true }).first().waitFor();
    await page.keyboard.press('Space');
    await page.getByText('le train', { exact: true }).first().waitFor();
    // The mark is scheduled offline too: the list counts the deck as done, the progress page shows it.
    await page.keyboard.press('ArrowRight');
    await page.getByRole('heading', { name: 'Practice complete' }).waitFor();
    await page.goto(`${url()}/flashcards`);
    await page.getByText('0 due', { exact: true }).waitFor();
    await page.goto(`${url()}/flashcards/${deck.id}/progress`);
    await page.getByRole('heading', { name: 'Progress' }).waitFor();
    await expect(page.locator('.progress-stat', { hasText: 'Learning' }).locator('dd').textContent()).resolves.toBe('1');

    await page.goto(url());
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Ada Lovelace');

    // The calendar tool needs the server and says so.
    await page.goto(`${url()}/calendars`);
    await page.getByRole('heading', { name: 'Calendars' }).waitFor();
    await page.getByText('You are offline. The calendar tool needs the server').waitFor();
    await context.setOffline(false);
    await page.getByText('You are offline.').waitFor({ state: 'detached' });
  });

  it("keeps a screen's top to its own address: offline, another address never shows it", async () => {
    const { page, context } = b;
    await page.goto(url());
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
    });
    await page.reload();
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    // The last page seen online is the calendar list's, which carries its title (routeParts.ts).
    const online = await page.goto(`${url()}/calendars`);
    expect(await online?.text()).toContain('cal-list-page');
    await page.getByRole('heading', { name: 'Calendars' }).waitFor();
    await context.setOffline(true);
    const flashcards = await page.goto(`${url()}/flashcards`);
    expect(flashcards?.fromServiceWorker()).toBe(true);
    expect(await flashcards?.text()).not.toContain('cal-list-page');
    expect(await flashcards?.text()).not.toContain('landing__avatar');
    await page.getByRole('heading', { name: 'Your Decks' }).waitFor();
    const calendars = await page.goto(`${url()}/calendars`);
    expect(await calendars?.text()).toContain('cal-list-page');
    await page.getByText('You are offline. The calendar tool needs the server').waitFor();
    await context.setOffline(false);
  });
});

// The vault's key never enters a browser's history (issue 33), in Chromium against the real binary.
// Chromium records every address it opens, fragment and all, in its History database before any
// script of the page runs, so a vault's own link (#v=…&k=…&t=…) stayed there even though the page
// took it off the address bar at once. The sync page now gives a one-time link instead: a browser
// with a profile of its own opens it and joins; its tab history and address never hold a key, its
// History database (read with sql.js after the browser closed) holds neither the vault's key nor
// its token, and the one-time link it does hold opens nothing any more. A vault's own link still
// works.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, launchBrowser } from './support/browser';
import { startServer, type RunningServer } from './support/server';
import { readStorage, seed } from './flashcards-support/seed';

const NAME = 'Quokka phrases';

interface VaultRecord {
  id: string;
  key: string;
  token: string;
}

/** Every address the profile's History database holds. */
async function visited(profile: string): Promise<string[]> {
  const SQL = await initSqlJs();
  const db = new SQL.Database(readFileSync(join(profile, 'Default', 'History')));
  try {
    return (db.exec('select url from urls')[0]?.values ?? []).map(([url]) => String(url));
  } finally {
    db.close();
  }
}

describe('sync: the vault’s key stays out of browser history', () => {
  let server: RunningServer;
  let browser: Browser;
  let a: Page;
  let vault: VaultRecord;
  let once = '';
  const profile = mkdtempSync(join(tmpdir(), 'hearth-profile-'));

  beforeAll(async () => {
    server = await startServer();
    browser = await launchBrowser();
    a = await (await browser.newContext()).newPage();
    a.setDefaultTimeout(15_000);
  });
  afterAll(async () => {
    await browser.close();
    await server.stop();
    rmSync(profile, { recursive: true, force: true });
  });

  it('a browser that syncs gives a one-time link for another device, its own link only on request', async () => {
    await seed(a, server.url, [{ id: 'deck-q', name: NAME, cards: [{ front: 'g’day', back: 'hello' }] }]);
    await a.goto(`${server.url}/sync`);
    await a.getByRole('button', { name: 'Sync this browser' }).click();
    once = await a.getByRole('textbox', { name: 'Sync link' }).inputValue();
    vault = (await readStorage(a, 'sync:vault')) as VaultRecord;
    expect(once).toMatch(/\/sync#h=[0-9a-f]{32}&k=[\w-]+$/);
    expect(once).not.toContain(vault.key);
    expect(once).not.toContain(vault.token);
    await a.getByText('This browser’s permanent sync link').click();
    await expect(a.getByRole('textbox', { name: 'Permanent link' }).inputValue()).resolves.toBe(
      `${server.url}/sync#v=${vault.id}&k=${vault.key}&t=${vault.token}`,
    );
  });

  it('another browser opens it and joins: no history entry, address or visited-address record holds the key', async () => {
    let context: BrowserContext | null = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
    try {
      const b = context.pages()[0] ?? (await context.newPage());
      b.setDefaultTimeout(15_000);
      await b.goto(`${server.url}/flashcards`);
      const before = await b.evaluate(() => history.length);
      await b.goto(once);
      await b.getByRole('button', { name: 'Join and sync' }).waitFor();
      // One entry for the visit, its address without the secrets, nothing of them in its state.
      expect(await b.evaluate(() => history.length)).toBe(before + 1);
      expect(b.url()).toBe(`${server.url}/sync`);
      expect(JSON.stringify(await b.evaluate(() => history.state as unknown))).not.toContain('k=');
      await b.getByRole('button', { name: 'Join and sync' }).click();
      await b.getByText(/Last synced: /).waitFor();
      await b.getByRole('link', { name: 'Back to decks' }).click();
      await b.getByRole('heading', { name: NAME }).waitFor();
      // Back to the sync page's entry: still no secret in the address.
      await b.goBack();
      await b.getByRole('heading', { name: 'Sync', exact: true }).waitFor();
      expect(b.url()).toBe(`${server.url}/sync`);
      // This browser syncs: its own storage holds the key, its history must not.
      expect(((await readStorage(b, 'sync:vault')) as VaultRecord).key).toBe(vault.key);
      await context.close();
      context = null;

      const addresses = await visited(profile);
      expect(addresses.some((address) => address.startsWith(`${server.url}/sync`))).toBe(true);
      for (const address of addresses) {
        expect(address).not.toContain(vault.key);
        expect(address).not.toContain(vault.token);
      }
    } finally {
      await context?.close();
    }
  });

  it('the one-time link opens nothing once used, and says so', async () => {
    const late = await (await browser.newContext()).newPage();
    late.setDefaultTimeout(15_000);
    await late.goto(once);
    await late.getByRole('button', { name: 'Join and sync' }).click();
    await late
      .getByRole('alert')
      .getByText(/This link was used already \(it works once\)/)
      .waitFor();
    expect(await readStorage(late, 'sync:vault')).toBeNull();
  });

  it('a vault’s own link (as made before one-time links) still joins', async () => {
    const old = await (await browser.newContext()).newPage();
    old.setDefaultTimeout(15_000);
    await old.goto(`${server.url}/flashcards`);
    await old.goto(`${server.url}/sync#v=${vault.id}&k=${vault.key}&t=${vault.token}`);
    await old.waitForURL(`${server.url}/sync`);
    await old.getByRole('button', { name: 'Join and sync' }).click();
    await old.getByText(/Last synced: /).waitFor();
    await old.getByRole('link', { name: 'Back to decks' }).click();
    await old.getByRole('heading', { name: NAME }).waitFor();
  });
});

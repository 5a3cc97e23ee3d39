// Replacing the sync link in Chromium against the real binary, with three browser contexts on
// one vault: A replaces the link; B opens the new link and keeps syncing with A both ways; C keeps
// the old link and can neither read nor write it (the server answers 404 for the old id, C's page
// says the link was removed or replaced, and C keeps its decks). The changed sync page (synced,
// the confirmation dialog, the link replaced, the gone state) has no axe violations in light and
// dark, on a phone and a desktop.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { axe, describeViolations } from './support/axe';
import { launchBrowser } from './support/browser';
import { startServer, type RunningServer } from './support/server';
import { readStorage, seed } from './flashcards-support/seed';

const NAME = 'Quokka phrases';
const FROM_B = 'Added on B after the replacement';
const FROM_A = 'Added on A after the replacement';

const DEVICES = [
  { name: 'phone', options: { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true } },
  { name: 'desktop', options: { viewport: { width: 1280, height: 800 } } },
] as const;
const SCHEMES = ['light', 'dark'] as const;

interface StoredDeck {
  id: string;
  name: string;
}

async function deckNames(page: Page): Promise<string[]> {
  const index = ((await readStorage(page, 'decks:index')) ?? []) as string[];
  const names: string[] = [];
  for (const id of index) {
    const deck = (await readStorage(page, `decks:${id}`)) as StoredDeck | null;
    if (deck) names.push(deck.name);
  }
  return names.sort();
}

const fieldsOf = (link: string) => new URLSearchParams(new URL(link).hash.slice(1));

/** The vault's own link as the sync page gives it on request (one-time links are sync-history.e2e.ts's). */
async function permanentLink(page: Page): Promise<string> {
  const field = page.getByRole('textbox', { name: 'Permanent link' });
  if (!(await field.isVisible())) await page.getByText('This browser’s permanent sync link').click();
  return field.inputValue();
}

/** A new deck through the editor, as a learner makes one. */
async function newDeck(page: Page, name: string) {
  await page.getByRole('link', { name: 'Flashcards' }).first().click();
  await page.getByRole('link', { name: 'New deck' }).first().click();
  await page.getByRole('textbox', { name: 'Deck name' }).fill(name);
  await page.getByRole('textbox', { name: 'Card 1 front', exact: true }).fill('front');
  await page.getByRole('textbox', { name: 'Card 1 back', exact: true }).fill('back');
  await page.getByRole('button', { name: 'Save Deck' }).click();
  await page.locator('#save-toast').waitFor();
}

describe('sync: replacing the link', () => {
  let server: RunningServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let a: Page;
  let b: Page;
  let c: Page;
  let oldLink = '';
  let newLink = '';
  /** C's vault record once the server no longer has it (before C joins the new link). */
  let goneVault: unknown = null;
  const found: string[] = [];

  const check = async (page: Page, name: string) => {
    for (const scheme of SCHEMES) {
      await page.emulateMedia({ colorScheme: scheme });
      // Colours change with a transition: judge the settled ones.
      await page.evaluate(() => Promise.all(document.getAnimations().map((animation) => animation.finished)));
      found.push(...describeViolations(`${name}, ${scheme}`, await axe(page)));
    }
    await page.emulateMedia({ colorScheme: 'light' });
  };

  beforeAll(async () => {
    server = await startServer();
    browser = await launchBrowser();
    const pages: Page[] = [];
    for (let i = 0; i < 3; i += 1) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      contexts.push(context);
      const page = await context.newPage();
      page.setDefaultTimeout(20_000);
      pages.push(page);
    }
    [a, b, c] = pages as [Page, Page, Page];
  });
  afterAll(async () => {
    await browser.close();
    await server.stop();
  });

  it('A syncs, and B and C join from its link', async () => {
    await seed(a, server.url, [{ id: 'deck-q', name: NAME, cards: [{ front: 'g’day', back: 'hello' }] }]);
    await a.goto(`${server.url}/sync`);
    await a.getByRole('button', { name: 'Sync this browser' }).click();
    await a.getByRole('textbox', { name: 'Sync link' }).waitFor();
    oldLink = await permanentLink(a);
    for (const page of [b, c]) {
      await page.goto(`${server.url}/flashcards`);
      await page.goto(oldLink);
      await page.getByRole('button', { name: 'Join and sync' }).click();
      await page.getByText(/Last synced: /).waitFor();
      expect(await deckNames(page)).toEqual([NAME]);
    }
  });

  it('A replaces the link after confirming in a dialog; the old link can neither read nor write', async () => {
    await a.goto(`${server.url}/sync`);
    await a.getByText(/Last synced: /).waitFor();
    await check(a, 'sync page, synced, desktop');
    await a.getByRole('button', { name: 'Replace the sync link' }).click();
    const dialog = a.getByRole('dialog', { name: 'Replace the sync link?' });
    await dialog.waitFor();
    await dialog.getByText(/The old link stops working/).waitFor();
    await check(a, 'replace dialog, desktop');
    // The safe answer has the focus: Escape keeps the link.
    await a.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await permanentLink(a)).toBe(oldLink);

    await a.getByRole('button', { name: 'Replace the sync link' }).click();
    await a.getByRole('dialog').getByRole('button', { name: 'Replace the link' }).click();
    await a.getByText(/The sync link was replaced/).waitFor();
    // The focus is not lost with the closed dialog: it is on what the replacement did.
    await a.waitForFunction(() => document.activeElement?.textContent.startsWith('The sync link was replaced') === true);
    // A one-time link for the new vault comes with the replacement.
    await a.getByRole('textbox', { name: 'Sync link' }).waitFor();
    newLink = await permanentLink(a);
    const [before, after] = [fieldsOf(oldLink), fieldsOf(newLink)];
    expect(after.get('v')).toMatch(/^[0-9a-f]{32}$/);
    expect(after.get('v')).not.toBe(before.get('v'));
    expect(after.get('k')).not.toBe(before.get('k'));
    expect(after.get('t')).not.toBe(before.get('t'));
    await check(a, 'sync page, link replaced, desktop');

    const oldUrl = `${server.url}/api/sync/vaults/${before.get('v') ?? ''}`;
    expect((await fetch(oldUrl)).status).toBe(404);
    const write = await fetch(oldUrl, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/octet-stream', Authorization: `Bearer ${before.get('t') ?? ''}`, 'If-Match': '"v1"' },
      body: new Uint8Array([1, 2, 3]),
    });
    expect(write.status).toBe(404);
    expect((await fetch(`${server.url}/api/sync/vaults/${after.get('v') ?? ''}`)).status).toBe(200);
    expect(await readStorage(a, 'sync:retiredVaults')).toBeNull();
  });

  it('B opens the new link and keeps syncing with A, both ways', async () => {
    await b.goto(`${server.url}/flashcards`);
    await b.goto(newLink);
    await b.getByRole('button', { name: 'Join and sync' }).click();
    await b.getByText(/Last synced: /).waitFor();
    expect(await deckNames(b)).toEqual([NAME]);
    await newDeck(b, FROM_B);
    await a.getByRole('link', { name: 'Flashcards' }).first().click();
    await a.getByRole('heading', { name: FROM_B }).waitFor();
    await newDeck(a, FROM_A);
    await b.getByRole('link', { name: 'Flashcards' }).first().click();
    await b.getByRole('heading', { name: FROM_A }).waitFor();
    expect(await deckNames(a)).toEqual([FROM_A, FROM_B, NAME].sort());
    expect(await deckNames(b)).toEqual(await deckNames(a));
  });

  it('C, still on the old link, sees it removed or replaced, keeps its decks, and reads or writes nothing', async () => {
    await c.goto(`${server.url}/flashcards`);
    await c.getByRole('link', { name: 'Sync stopped' }).click();
    await c.getByText(/no longer has this browser's sync vault: it was removed, or its link was replaced on another device/).waitFor();
    await c.getByText(/open the new link on this device, or paste it here, to keep syncing/).waitFor();
    await check(c, 'sync page, gone, desktop');
    expect(await deckNames(c)).toEqual([NAME]);
    goneVault = await readStorage(c, 'sync:vault');
    expect(goneVault).toMatchObject({ id: fieldsOf(oldLink).get('v'), gone: true });
    // Nothing of what A and B wrote since reached C.
    await c.waitForTimeout(500);
    expect(await deckNames(c)).toEqual([NAME]);
  });

  it('C’s first step is the new link, pasted: it joins A and B, not a separate new vault', async () => {
    // The main button joins with a link; making a separate vault is the plain one after it.
    const primary = c.locator('.sync-card .button--primary');
    await expect(primary.allTextContents()).resolves.toEqual(['Join with this link']);
    await expect(c.getByRole('button', { name: 'Start syncing this browser again' }).getAttribute('class')).resolves.not.toContain('button--primary');
    const field = c.getByRole('textbox', { name: 'The new sync link' });
    await field.fill('https://elsewhere.example/sync#v=0123456789abcdef0123456789abcdef&k=abc&t=def');
    await c.getByRole('button', { name: 'Join with this link' }).click();
    await c.getByText('This link is for another site: open it there.').waitFor();
    await field.fill(newLink);
    await c.getByRole('button', { name: 'Join with this link' }).click();
    await c.getByText(/Last synced: /).waitFor();
    expect(await readStorage(c, 'sync:vault')).toMatchObject({ id: fieldsOf(newLink).get('v'), gone: false });
    await c.getByRole('link', { name: 'Back to decks' }).click();
    await c.getByRole('heading', { name: FROM_A }).waitFor();
    expect(await deckNames(c)).toEqual(await deckNames(a));
  });

  it('the changed sync page has no axe violations on a phone either (synced, dialog, gone)', async () => {
    const device = DEVICES[0];
    const phone = await browser.newContext(device.options);
    try {
      const page = await phone.newPage();
      page.setDefaultTimeout(20_000);
      const vault = (await readStorage(a, 'sync:vault')) as Record<string, unknown>;
      await seed(page, server.url, [{ id: 'deck-q', name: NAME, cards: [{ front: 'g’day', back: 'hello' }] }], { 'sync:vault': JSON.stringify(vault) });
      await page.goto(`${server.url}/sync`);
      await page.getByText(/Last synced: /).waitFor();
      await check(page, `sync page, synced, ${device.name}`);
      await page.getByRole('button', { name: 'Replace the sync link' }).click();
      await page.getByRole('dialog', { name: 'Replace the sync link?' }).waitFor();
      await check(page, `replace dialog, ${device.name}`);
      await page.getByRole('button', { name: 'Keep this link' }).click();
      await seed(page, server.url, [], { 'sync:vault': JSON.stringify(goneVault) });
      await page.goto(`${server.url}/sync`);
      await page.getByText(/no longer has this browser's sync vault/).waitFor();
      await check(page, `sync page, gone, ${device.name}`);
    } finally {
      await phone.close();
    }
    expect(found, found.join('\n')).toEqual([]);
  });
});

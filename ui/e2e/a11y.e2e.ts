// axe-core on every screen (SPEC.md 2's routes, a seeded deck, the calendar editor with a feed, its
// regex dialog and its number boxes, one refusing what was typed; the owner page on a keyed site),
// light and dark, on a 360×740 phone and a desktop: zero violations.
import { describe, expect, it } from 'vitest';
import type { BrowserContext } from 'playwright-core';
import { axe, describeViolations } from './support/axe';
import { useBrowser } from './support/browser';
import { keyedSeedEntries, screens, SEED_DECK_ID, seedEntries, useScreensSite } from './support/screens';

const DEVICES = [
  { name: 'phone', options: { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true } },
  { name: 'desktop', options: { viewport: { width: 1280, height: 800 } } },
] as const;
const SCHEMES = ['light', 'dark'] as const;

describe('accessibility: axe on every screen', () => {
  const site = useScreensSite();
  const b = useBrowser();

  for (const device of DEVICES) {
    for (const scheme of SCHEMES) {
      it(`has no violations on ${device.name}, ${scheme}`, async () => {
        const { origin, feedUrl, keyedOrigin } = site();
        const context: BrowserContext = await b.browser.newContext({ ...device.options, colorScheme: scheme });
        const found: string[] = [];
        try {
          // Each site (origin) its own entries.
          const entries = { [origin]: seedEntries(feedUrl, origin), [keyedOrigin]: keyedSeedEntries() };
          await context.addInitScript((bySite: Record<string, [string, string][]>) => {
            if (sessionStorage.getItem('seeded')) return;
            sessionStorage.setItem('seeded', '1');
            localStorage.clear();
            for (const [key, value] of bySite[location.origin] ?? []) localStorage.setItem(key, value);
          }, entries);
          const page = await context.newPage();
          const check = async (name: string) => {
            found.push(...describeViolations(name, await axe(page)));
          };
          for (const screen of screens(feedUrl)) {
            await page.goto(`${screen.keyed ? keyedOrigin : origin}${screen.path}`);
            await page.locator(screen.ready).first().waitFor({ timeout: 15_000 });
            await page.waitForTimeout(300); // lets transitions and live previews settle before judging colours
            await check(screen.name);
            if (screen.name === 'calendar editor') {
              await page.locator('.cal-samples__counter', { hasText: '1/3' }).waitFor();
              await page.getByRole('button', { name: 'Insert SUMMARY', exact: true }).click();
              await page.getByRole('dialog').waitFor();
              await page.getByLabel('Pattern').fill('Room (');
              await page.locator('.cal-regex__error').waitFor();
              await check('regex dialog (invalid pattern)');
              await page.keyboard.press('Escape');
              // The number boxes (NumberField), one of them refusing what was typed.
              await page.getByLabel('Only keep events near today').check();
              await page.getByLabel('One alarm before each event').check();
              await page.getByLabel('Minutes before').fill('-5');
              await page.getByText('whole minutes from 0 to 40320').waitFor();
              await check('calendar options (a number refused)');
            }
            if (screen.name === 'deck edit') {
              // Sharing: the dialog before and after making a link, then the shared deck's own page.
              await page.getByRole('button', { name: 'Share' }).click();
              await page.getByRole('button', { name: 'Create share link' }).waitFor();
              await check('share dialog');
              await page.getByRole('button', { name: 'Create share link' }).click();
              const link = await page.getByRole('textbox', { name: 'Share link' }).inputValue();
              await page.waitForTimeout(300);
              await check('share dialog (link made)');
              await page.keyboard.press('Escape');
              await page.goto(link);
              await page.getByRole('button', { name: 'Add to my decks' }).waitFor();
              await check('shared deck');
              // A card another device changed at the same time: the note sync left on it.
              await page.evaluate((id) => {
                const key = `decks:${id}`;
                const deck = JSON.parse(localStorage.getItem(key) ?? '{}') as { cards: { conflict?: string }[] };
                const [card] = deck.cards;
                if (card) card.conflict = 'back: written on the other device\nfront: and this';
                localStorage.setItem(key, JSON.stringify(deck));
              }, SEED_DECK_ID);
              await page.goto(`${origin}/flashcards/${SEED_DECK_ID}/edit`);
              await page.getByRole('button', { name: 'Dismiss the note on card 1' }).waitFor();
              await check('deck edit (a conflict note)');
            }
            if (screen.name === 'sync') {
              // What a learner sees when the server no longer has their vault, or a shared deck.
              await page.evaluate(
                (id) => localStorage.setItem('sync:vault', JSON.stringify({ id, key: 'k', token: 't', version: 1, lastSyncedAt: null })),
                'f'.repeat(32),
              );
              await page.reload();
              await page.getByRole('button', { name: 'Start syncing this browser again' }).waitFor();
              await check('sync (vault gone)');
              await page.evaluate(() => localStorage.removeItem('sync:vault'));
              await page.goto(`${origin}/sync/deck#s=${'e'.repeat(32)}&k=gone`);
              await page.getByText(/link was revoked/).waitFor();
              await check('shared deck (gone)');
            }
            if (screen.name === 'progress') {
              await page.getByLabel('New cards per day').fill('-1');
              await page.getByText('A whole number from 0 to 9999.').waitFor();
              await check('progress (a number refused)');
            }
            if (screen.name === 'practice') {
              await page.keyboard.press('Space');
              await page.waitForTimeout(700);
              await check('practice (flipped)');
            }
          }
        } finally {
          await context.close();
        }
        expect(found, found.join('\n')).toEqual([]);
      });
    }
  }
});

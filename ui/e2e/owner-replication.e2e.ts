// The owner page's Replication section (issue 37) in Chromium against the real binary, on a site
// that says it is replicated (--replica-url) while no Litestream runs beside it: the section names
// the replica without its query (which may hold an endpoint), says in words and by a status that
// where the replica stands cannot be read, and shows the restore drill failing once it has run;
// axe finds nothing, light and dark, on a phone and a desktop. The real Litestream is driven by
// tests/litestream/run.sh.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { axe, describeViolations } from './support/axe';
import { useBrowser } from './support/browser';
import { useServer } from './support/server';

const KEY = 'replication-s3cret';
const DEVICES = [
  { name: 'phone', options: { viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true } },
  { name: 'desktop', options: { viewport: { width: 1280, height: 800 } } },
] as const;

describe('the owner page of a replicated site', () => {
  const b = useBrowser();
  const url = useServer(['--publish-key', KEY, '--replica-url', 's3://bucket/hearth?endpoint=http://127.0.0.1:9', '--restore-drill-interval', '10s'], {
    HEARTH_LITESTREAM: '/nonexistent/litestream',
  });
  const section = (page: Page) => page.getByRole('region', { name: 'Replication', exact: true });

  /** Checks again until `text` shows in the section (the server measures a moment after its start, drills after 10 s). */
  async function until(page: Page, text: RegExp): Promise<void> {
    const deadline = Date.now() + 30_000;
    while ((await section(page).getByText(text).count()) === 0) {
      expect(Date.now() < deadline, `waiting for ${String(text)}`).toBe(true);
      await page.waitForTimeout(500);
      await page.getByRole('button', { name: 'Check again' }).click();
    }
  }

  it('says the replica cannot be read and the drill failed, in words and by status', async () => {
    const page = b.page;
    await page.addInitScript((key: string) => localStorage.setItem('site:key', key), KEY);
    await page.goto(url('/owner'));
    await section(page).waitFor();
    await until(page, /^Failing:? ?Replicated to s3:\/\/bucket\/hearth by Litestream, but where the replica stands could not be read: /);
    await expect(section(page).innerText()).resolves.not.toContain('endpoint');
    await until(page, /^Failed:? ?.+: cannot run \/nonexistent\/litestream/);
    await section(page).getByText('Restore drill', { exact: true }).waitFor();
    // The doctor's checks say the same.
    const checks = page.getByRole('region', { name: 'Checks', exact: true });
    await checks.getByText(/^replication drill$/).waitFor();

    const found: string[] = [];
    for (const device of DEVICES) {
      for (const scheme of ['light', 'dark'] as const) {
        const context = await b.browser.newContext({ ...device.options, colorScheme: scheme });
        try {
          await context.addInitScript((key: string) => localStorage.setItem('site:key', key), KEY);
          const other = await context.newPage();
          await other.goto(url('/owner'));
          await section(other).getByText('Restore drill', { exact: true }).waitFor();
          await other.waitForTimeout(300); // lets transitions settle before judging colours
          found.push(...describeViolations(`owner replication, ${device.name}, ${scheme}`, await axe(other)));
          const overflow = await other.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          expect(overflow, `horizontal overflow on ${device.name}`).toBeLessThanOrEqual(0);
        } finally {
          await context.close();
        }
      }
    }
    expect(found, found.join('\n')).toEqual([]);
  }, 90_000);
});

// Debian's Chromium through playwright-core (never a downloaded browser), with a screenshot
// saved and its path printed when a test fails.
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOT_DIR = resolve(import.meta.dirname, '../../test-results');

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
];

export interface LaunchOptions {
  /**
   * Classic scrollbars, as a desktop browser shows them (Playwright hides them when headless): a
   * page that grows a scrollbar late is then seen to move sideways.
   */
  scrollbars?: boolean;
}

export function launchBrowser(options: LaunchOptions = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
    headless: true,
    ...(options.scrollbars ? { ignoreDefaultArgs: ['--hide-scrollbars'] } : {}),
  });
}

export interface BrowserFixture {
  readonly browser: Browser;
  readonly context: BrowserContext;
  readonly page: Page;
}

/**
 * Registers hooks giving each test a fresh context and page; on failure a full-page screenshot
 * is written under ui/test-results and its path printed.
 */
export function useBrowser(options: BrowserContextOptions = {}, launch: LaunchOptions = {}): BrowserFixture {
  let browser: Browser | undefined;
  let context: BrowserContext | undefined;
  let page: Page | undefined;

  beforeAll(async () => {
    browser = await launchBrowser(launch);
  });
  afterAll(async () => {
    await browser?.close();
  });
  beforeEach(async () => {
    if (!browser) throw new Error('browser did not start');
    context = await browser.newContext(options);
    page = await context.newPage();
  });
  // The screenshot is taken here, before the context closes (onTestFailed would run too late).
  afterEach(async (ctx) => {
    const failed = ctx.task.result?.state === 'fail' || (ctx.task.result?.errors?.length ?? 0) > 0;
    if (failed && page && !page.isClosed()) {
      mkdirSync(SCREENSHOT_DIR, { recursive: true });
      const name = ctx.task.name.replace(/[^a-z0-9]+/gi, '-').toLowerCase();
      const path = resolve(SCREENSHOT_DIR, `${name}.png`);
      try {
        await page.screenshot({ path, fullPage: true });
        console.error(`screenshot: ${path}`);
      } catch (error) {
        console.error(`screenshot failed: ${String(error)}`);
      }
    }
    await context?.close();
  });

  return {
    get browser() {
      if (!browser) throw new Error('browser not started');
      return browser;
    },
    get context() {
      if (!context) throw new Error('no context');
      return context;
    },
    get page() {
      if (!page) throw new Error('no page');
      return page;
    },
  };
}

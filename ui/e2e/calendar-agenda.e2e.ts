// The agenda page (issue 36) in Chromium against the real binary and a loopback upstream: the
// editor's "Agenda page" option, its link and <iframe> snippet once published, Google's slow
// refresh with "A new address for Google" (shown again after a reload, nothing moving); the page
// itself readable with JavaScript off, axe 0 light and dark on a phone and a desktop, nothing
// moving while it loads, framed by another site while the app is not.
import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { axe, describeViolations } from './support/axe';
import { useBrowser } from './support/browser';
import { comingFeed } from './calendars-support/agenda';
import { useCalendarSite } from './calendars-support/site';

const DEVICES = [
  { name: 'phone', options: { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true } },
  { name: 'desktop', options: { viewport: { width: 1280, height: 800 } } },
] as const;
const SCHEMES = ['light', 'dark'] as const;

describe('calendars: the agenda page', () => {
  const b = useBrowser();
  const { url, up } = useCalendarSite({ '/coming.ics': { body: comingFeed() } });

  async function publish(id: string, agenda: boolean) {
    const response = await fetch(url('/api/calendars'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ id, name: 'Garden club', url: up().url('/coming.ics'), mapping: {}, ...(agenda ? { agenda: true } : {}) }),
    });
    expect(response.status).toBe(201);
  }

  async function noViolations(page: Page, name: string) {
    const found = describeViolations(name, await axe(page));
    expect(found, found.join('\n')).toEqual([]);
  }

  it('the editor offers the page, gives its link and snippet once published, and a new address for Google', async () => {
    const page = b.page;
    const query = new URLSearchParams({ id: 'e2e-agenda-editor', url: up().url('/coming.ics'), name: 'Garden club' });
    await page.goto(url(`/calendars/new?${query.toString()}`));
    await page.getByRole('heading', { name: 'Filters & options' }).waitFor();
    const option = page.getByRole('switch', { name: 'Agenda page' });
    await expect(option.isChecked()).resolves.toBe(false);
    await page.getByText('Off: the calendar is only a feed for calendar apps.').waitFor();
    await option.check();
    await page.getByText('A page of the coming events at the calendar’s address without “.ics”', { exact: false }).waitFor();

    await page.getByRole('button', { name: 'Build & Host' }).click();
    const links = page.getByRole('region', { name: 'Agenda page' });
    await links.waitFor();
    const pageUrl = url('/cal/e2e-agenda-editor');
    await expect(links.getByRole('link', { name: pageUrl }).getAttribute('href')).resolves.toBe(pageUrl);
    const snippet = await page.getByLabel('Snippet to embed it in your site').inputValue();
    expect(snippet).toContain(`<iframe src="${pageUrl}" title="Garden club"`);
    // The link works: the page is there now.
    expect((await fetch(pageUrl)).status).toBe(200);

    // Google's slow refresh said, and eased.
    const google = page.getByRole('region', { name: 'Google Calendar' });
    await google.getByText('only every 8 to 24 hours', { exact: false }).waitFor();
    await google.getByRole('button', { name: 'A new address for Google' }).click();
    const field = page.getByLabel('The new address to give Google');
    await field.waitFor();
    const address = await field.inputValue();
    expect(address).toMatch(/\/cal\/e2e-agenda-editor~[0-9a-f]{10}\.ics$/);
    const aliased = await fetch(address);
    expect(aliased.status).toBe(200);
    expect(aliased.headers.get('content-type')).toContain('text/calendar');

    for (const scheme of SCHEMES) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForTimeout(200);
      await noViolations(page, `editor with the agenda and Google parts (${scheme})`);
    }

    // After a reload the address given to Google is shown again (the calendar's status lists it),
    // in the room the section kept for it: with the answers held back as from a Pi, the section's
    // height never changes from its first frame, so nothing below it moves when the address comes.
    await page.emulateMedia({ colorScheme: 'light' });
    await page.route(/\/api\//, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 400));
      await route.continue();
    });
    await page.addInitScript(() => {
      // Each frame from the section's first: its height, and whether the note stood in for the address.
      const frames: { height: number; note: boolean }[] = [];
      (window as unknown as { __frames: typeof frames }).__frames = frames;
      const sample = () => {
        const section = document.querySelector('section[aria-labelledby="cal-google-title"]');
        if (section) frames.push({ height: Math.round(section.getBoundingClientRect().height), note: section.querySelector('.cal-google__note') !== null });
        if (frames.length < 400) requestAnimationFrame(sample);
      };
      requestAnimationFrame(sample);
    });
    for (const width of [1280, 360]) {
      await page.setViewportSize({ width, height: 800 });
      await page.reload();
      const again = page.getByLabel('The newest address for Google');
      await again.waitFor();
      await expect(again.inputValue()).resolves.toBe(address);
      await page.waitForTimeout(1000);
      const frames = await page.evaluate(() => (window as unknown as { __frames: { height: number; note: boolean }[] }).__frames);
      const heights = frames.map((frame) => frame.height);
      // Drawn before the answer came (the note in the address's room), and the same height after.
      expect(frames[0]?.note, `${width}px: the first frame`).toBe(true);
      expect(frames.at(-1)?.note, `${width}px: the last frame`).toBe(false);
      expect(new Set(heights), `${width}px: the section's heights, frame by frame: ${heights.join(' ')}`).toEqual(new Set([heights[0]]));
    }
    for (const scheme of SCHEMES) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForTimeout(200);
      await noViolations(page, `editor showing the address for Google again (${scheme})`);
    }
  });

  it('is readable, axe-clean and still on a phone and a desktop, light and dark', async () => {
    await publish('e2e-agenda-page', true);
    for (const device of DEVICES) {
      for (const scheme of SCHEMES) {
        const context: BrowserContext = await b.browser.newContext({ ...device.options, colorScheme: scheme });
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
          await page.goto(url('/cal/e2e-agenda-page'));
          await page.getByRole('heading', { level: 1, name: 'Garden club' }).waitFor();
          // The past event is gone; the talk's texts are shown as text; the series is expanded.
          const text = await page.locator('main').innerText();
          expect(text).not.toContain('Last week’s talk');
          expect(text).toContain('Talk: <b>Gardens</b> & bees');
          expect(text).toContain('Library, room 2');
          expect(text).toContain('Times in Europe/Amsterdam.');
          expect((text.match(/Choir/g) ?? []).length).toBeGreaterThanOrEqual(10);
          await expect(page.getByRole('button', { name: 'Copy' }).isVisible()).resolves.toBe(true);
          await page.waitForTimeout(1000);
          const shifts = await page.evaluate(() => (window as unknown as { __shifts: number[] }).__shifts);
          expect(shifts.reduce((sum, s) => sum + s, 0)).toBeLessThan(0.001);
          await noViolations(page, `agenda page (${device.name}, ${scheme})`);
          // Phone first: nothing wider than the screen.
          const wide = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
          expect(wide).toBeLessThanOrEqual(0);
        } finally {
          await context.close();
        }
      }
    }
  });

  it('is read whole with JavaScript off, the address a field to select', async () => {
    await publish('e2e-agenda-nojs', true);
    const context = await b.browser.newContext({ javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await page.goto(url('/cal/e2e-agenda-nojs'));
      await page.getByRole('heading', { level: 1, name: 'Garden club' }).waitFor();
      await page.getByText('Talk: <b>Gardens</b> & bees').waitFor();
      await expect(page.getByRole('link', { name: 'Subscribe in your calendar app' }).getAttribute('href')).resolves.toMatch(
        /^webcal:\/\/127\.0\.0\.1:\d+\/cal\/e2e-agenda-nojs\.ics$/,
      );
      await expect(page.getByRole('link', { name: 'Add to Google Calendar' }).getAttribute('href')).resolves.toMatch(
        /^https:\/\/calendar\.google\.com\/calendar\/render\?cid=webcal/,
      );
      await expect(page.getByLabel('The calendar’s address, to copy').inputValue()).resolves.toBe(url('/cal/e2e-agenda-nojs.ics'));
      // The copy button is for scripts only.
      await expect(page.getByRole('button', { name: 'Copy' }).isVisible()).resolves.toBe(false);
    } finally {
      await context.close();
    }
  });

  it('may be framed by another site; the app may not, and without "agenda" there is no page', async () => {
    await publish('e2e-agenda-framed', true);
    await publish('e2e-agenda-off', false);
    expect((await fetch(url('/cal/e2e-agenda-off'))).status).toBe(404);
    up().set('/embed.html', {
      contentType: 'text/html; charset=utf-8',
      body: `<!doctype html><title>Embed</title><iframe id="agenda" src="${url('/cal/e2e-agenda-framed')}"></iframe><iframe id="app" src="${url('/')}"></iframe>`,
    });
    const page = b.page;
    await page.goto(up().url('/embed.html'));
    const agenda = page.frameLocator('#agenda');
    await agenda.getByRole('heading', { level: 1, name: 'Garden club' }).waitFor();
    // The app's own page is refused in its frame: Chromium shows its error page there instead.
    const direct = await b.context.newPage();
    await direct.goto(url('/'));
    const landing = (await direct.locator('h1').first().innerText()).trim();
    expect(landing).not.toBe('');
    await page.waitForTimeout(1000);
    const framed = await page.frameLocator('#app').locator('body').innerText();
    expect(framed).not.toContain(landing);
  });
});

// "Event properties" in Chromium against the real binary and a loopback upstream: "Show as free",
// a category and a colour in plain words write `properties` (the raw templates show them, and
// refuse a value at its field), Build & Host puts them in the hosted feed; a feed whose UIDs all
// change at a Refetch is noticed and "uids: content" is one button away; axe finds nothing on a
// phone and a desktop, light and dark.
import { describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { axe, describeViolations } from './support/axe';
import { useBrowser } from './support/browser';
import { DialogScript } from './calendars-support/dialogs';
import { useCalendarSite } from './calendars-support/site';
import { WORK_FEED } from './calendars-support/upstream';

/** The work feed with every UID made new (as a source that changes them at every fetch). */
const renamed = (n: number) => WORK_FEED.replace(/UID:(\w+)@hearth\.test/g, `UID:$1-${n}@hearth.test`);

describe('calendars: event properties and UIDs', () => {
  const b = useBrowser();
  const { url, up } = useCalendarSite({ '/work.ics': { body: WORK_FEED }, '/churn.ics': { body: renamed(1) } });

  async function openEditor(page: Page, id: string, path = '/work.ics') {
    const query = new URLSearchParams({ id, url: up().url(path), name: 'Work' });
    await page.goto(url(`/calendars/new?${query.toString()}`));
    await page.getByRole('heading', { name: 'Event properties' }).waitFor();
    await page.waitForFunction(() => document.querySelector('.cal-samples__counter')?.textContent.includes('1/3') === true, undefined, { timeout: 10_000 });
  }

  it('writes the plain-word choices as properties and the hosted feed carries them', async () => {
    const page = b.page;
    const dialogs = new DialogScript(page);
    await openEditor(page, 'e2e-props');
    await page.getByRole('switch', { name: 'Show as free' }).check();
    await page.getByLabel('Category', { exact: true }).fill('Work');
    await page.getByLabel('Colour', { exact: true }).selectOption('teal');

    // The raw templates show what the plain controls wrote, and refuse a value at its field.
    await page.getByText('Templates for these properties').click();
    await expect(page.locator('#cal-props-TRANSP').inputValue()).resolves.toBe('TRANSPARENT');
    await expect(page.locator('#cal-props-CATEGORIES').inputValue()).resolves.toBe('${CATEGORIES},Work');
    await page.locator('#cal-props-CLASS').fill('secret');
    await page.locator('#cal-props-CLASS-error').waitFor();
    await expect(page.locator('#cal-props-CLASS-error').textContent()).resolves.toBe('"secret" is not one of PUBLIC, PRIVATE, CONFIDENTIAL');
    await expect(page.locator('#cal-props-CLASS').getAttribute('aria-invalid')).resolves.toBe('true');
    await page.locator('#cal-props-CLASS').fill('private');
    await page.locator('#cal-props-CLASS-error').waitFor({ state: 'detached' });

    const published = page.waitForResponse((r) => r.url().endsWith('/api/calendars') && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Build & Host' }).click();
    const response = await published;
    expect(response.status()).toBe(201);
    expect(JSON.parse(response.request().postData() ?? '{}')).toMatchObject({
      properties: { TRANSP: 'TRANSPARENT', CATEGORIES: '${CATEGORIES},Work', COLOR: 'teal', CLASS: 'private' },
    });
    await page.getByRole('region', { name: 'Hosted feed' }).waitFor();
    const hosted = await (await fetch(url('/cal/e2e-props.ics'))).text();
    expect(hosted.match(/TRANSP:TRANSPARENT\r\n/g)).toHaveLength(3);
    expect(hosted.match(/COLOR:teal\r\n/g)).toHaveLength(3);
    expect(hosted.match(/CLASS:PRIVATE\r\n/g)).toHaveLength(3);
    expect(hosted).toContain('CATEGORIES:Work\r\n');
    expect(dialogs.seen.filter((d) => d.type === 'alert')).toEqual([]);
  });

  it('notices a feed whose UIDs changed at a Refetch and gives events UIDs from their content in one press', async () => {
    const page = b.page;
    await openEditor(page, 'e2e-uids', '/churn.ics');
    const group = page.getByRole('group', { name: 'Event UIDs' });
    await group.getByText('Events keep the UIDs their feed gives them.').waitFor();
    up().set('/churn.ics', { body: renamed(2) });
    // A Refetch takes a copy younger than five seconds as it is: one older is fetched again.
    await page.waitForTimeout(5_500);
    await page.getByRole('button', { name: 'Refetch' }).click();
    await group.getByText('When this feed last changed, 3 of 3 events came back under new UIDs', { exact: false }).waitFor({ timeout: 10_000 });

    const read = page.waitForResponse((r) => r.url().includes('/api/feed?') && r.url().includes('uids=content'));
    await group.getByRole('button', { name: 'Give events UIDs made from their content' }).click();
    // The editor reads the feed again with the UIDs the hosted feed will give its events.
    const answer = (await (await read).json()) as { events: { UID?: string }[] };
    expect(answer.events.map((e) => e.UID?.startsWith('hearth-'))).toEqual([true, true, true]);
    await group.getByRole('button', { name: 'Use the feed’s own UIDs' }).waitFor();
    await group.getByText('Events get UIDs made from their content', { exact: false }).waitFor();
  });

  describe('axe', () => {
    const DEVICES = [
      { name: 'phone', options: { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true } },
      { name: 'desktop', options: { viewport: { width: 1280, height: 800 } } },
    ] as const;
    const SCHEMES = ['light', 'dark'] as const;
    for (const device of DEVICES) {
      for (const scheme of SCHEMES) {
        it(`finds no violations in the properties on ${device.name}, ${scheme}`, async () => {
          const context: BrowserContext = await b.browser.newContext({ ...device.options, colorScheme: scheme });
          const found: string[] = [];
          try {
            const page = await context.newPage();
            await openEditor(page, `e2e-props-axe-${device.name}-${scheme}`);
            await page.getByLabel('Colour', { exact: true }).selectOption('crimson');
            await page.getByText('Templates for these properties').click();
            await page.locator('#cal-props-COLOR').fill('blurple');
            await page.locator('#cal-props-COLOR-error').waitFor();
            await page.waitForTimeout(300); // lets transitions settle before judging colours
            found.push(...describeViolations('event properties', await axe(page)));
          } finally {
            await context.close();
          }
          expect(found, found.join('\n')).toEqual([]);
        });
      }
    }
  });
});

import { describe, expect, it } from 'vitest';
import { NOT_FOUND_TOP, pageCacheKey, partNamesAt, ROUTE_RULES, ruleMatches, SHARED_PAGE_KEY, withoutTop } from './routeParts';

describe('the route parts table (read by the start-up and, through the build, by the server)', () => {
  it('matches as the server does: letter case and a trailing slash aside, "under" for deeper addresses', () => {
    const editor = ROUTE_RULES.find((r) => r.path === '/calendars/new');
    if (!editor) throw new Error('no editor rule');
    expect(ruleMatches(editor, '/Calendars/New/')).toBe(true);
    expect(ruleMatches(editor, '/calendars/new/x')).toBe(false);
    expect(partNamesAt('/flashcards/')).toEqual(['router', 'flashcards']);
    expect(partNamesAt('/FLASHCARDS/abc/edit')).toEqual(['router', 'flashcards']);
    expect(partNamesAt('/flashcardsx')).toEqual(['router']);
    expect(partNamesAt('/')).toEqual([]);
  });

  it('writes every rule path in lower case without a trailing slash, as the server compares them', () => {
    for (const rule of ROUTE_RULES) {
      expect(rule.path).toBe(rule.path.toLowerCase());
      expect(rule.path === '/' || !rule.path.endsWith('/')).toBe(true);
    }
  });

  it('gives a screen top only where it is one address, with nothing to press but links', () => {
    const tops = [...ROUTE_RULES.filter((rule) => rule.top !== undefined), { path: 'other', under: false, top: NOT_FOUND_TOP }];
    expect(tops.map((rule) => rule.path)).toEqual(['/', '/calendars', '/sync', 'other']);
    for (const rule of tops) {
      expect(rule.under, rule.path).toBe(false);
      expect(rule.top, rule.path).not.toMatch(/<(button|input|select|textarea)\b/);
    }
  });

  it("keeps offline a page with a screen top under its own address, and every other page under one key that is no screen's", () => {
    expect(pageCacheKey('/sync')).toBe('/sync');
    expect(pageCacheKey('/Calendars/')).toBe('/calendars');
    expect(pageCacheKey('/')).toBe('/');
    expect(pageCacheKey('/calendars/new')).toBe(SHARED_PAGE_KEY);
    expect(pageCacheKey('/sync/abc')).toBe(SHARED_PAGE_KEY);
    expect(pageCacheKey('/flashcards')).toBe(SHARED_PAGE_KEY);
    expect(pageCacheKey('/nowhere')).toBe(SHARED_PAGE_KEY);
    expect(ROUTE_RULES.some((rule) => ruleMatches(rule, SHARED_PAGE_KEY))).toBe(false);
  });

  it('takes a top out of a page, leaving its frame', () => {
    const page =
      '<div class="app"><header><a href="/">Ada</a></header><main id="main" class="site-main" tabindex="-1"><section class="landing"><h1>Ada</h1></section></main></div>';
    expect(withoutTop(page)).toBe('<div class="app"><header><a href="/">Ada</a></header><main id="main" class="site-main" tabindex="-1"></main></div>');
    expect(withoutTop('<main id="main"></main>')).toBe('<main id="main"></main>');
  });
});

import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import {
  categoryOf,
  changedFeeds,
  checkProperties,
  colourOf,
  CSS_COLOURS,
  showsAsFree,
  StoredPropertiesSchema,
  uidsChangedText,
  withCategory,
  withColour,
  withProperty,
  withShowAsFree,
} from './properties';

describe('the plain-word controls over the raw templates', () => {
  it('turns "Show as free" on and off as TRANSP', () => {
    const on = withShowAsFree(undefined, true);
    expect(on).toEqual({ TRANSP: 'TRANSPARENT' });
    expect(showsAsFree(on)).toBe(true);
    expect(showsAsFree({ TRANSP: ' transparent ' })).toBe(true);
    expect(showsAsFree({ TRANSP: 'OPAQUE' })).toBe(false);
    // The last property removed: none at all, so the config reads as before.
    expect(withShowAsFree(on, false)).toBeUndefined();
    expect(withShowAsFree({ TRANSP: 'TRANSPARENT', COLOR: 'teal' }, false)).toEqual({ COLOR: 'teal' });
  });

  it('adds a category to each event’s own and reads it back', () => {
    const p = withCategory(undefined, 'Work');
    expect(p).toEqual({ CATEGORIES: '${CATEGORIES},Work' });
    expect(categoryOf(p)).toBe('Work');
    expect(categoryOf(undefined)).toBe('');
    expect(withCategory(p, '  ')).toBeUndefined();
    // A template of another shape is left to the raw field.
    expect(categoryOf({ CATEGORIES: '${SUMMARY}' })).toBeNull();
    expect(categoryOf({ CATEGORIES: '${CATEGORIES},${LOCATION}' })).toBeNull();
  });

  it('sets a colour by its name', () => {
    expect(withColour(undefined, 'teal')).toEqual({ COLOR: 'teal' });
    expect(colourOf({ COLOR: ' Teal' })).toBe('teal');
    expect(withColour({ COLOR: 'teal' }, '')).toBeUndefined();
    expect(CSS_COLOURS).toHaveLength(147);
    expect([...CSS_COLOURS].sort()).toEqual([...CSS_COLOURS]);
  });

  it('keeps an empty template, which removes the property from every event', () => {
    expect(withProperty(undefined, 'URL', '')).toEqual({ URL: '' });
  });
});

describe('checkProperties', () => {
  it('refuses constant values the server refuses, at its paths', () => {
    expect(checkProperties({ TRANSP: 'free', CLASS: 'secret', COLOR: '#ff0000', URL: 'not an address' }).map((p) => p.path)).toEqual([
      'properties.TRANSP',
      'properties.CLASS',
      'properties.URL',
      'properties.COLOR',
    ]);
    expect(checkProperties({ TRANSP: 'free' })[0]?.message).toBe('"free" is not one of OPAQUE, TRANSPARENT');
  });

  it('leaves computed values and valid constants alone', () => {
    expect(
      checkProperties({ TRANSP: 'transparent', CLASS: 'private', COLOR: 'RoyalBlue', URL: 'https://example.org/${UID}', CATEGORIES: '${CATEGORIES},Work' }),
    ).toEqual([]);
    expect(checkProperties({ COLOR: '${X-COLOUR}', URL: '' })).toEqual([]);
    expect(checkProperties(undefined)).toEqual([]);
  });

  it('bounds the template and the categories', () => {
    expect(checkProperties({ URL: 'x'.repeat(4097) })[0]?.message).toBe('longer than 4096 bytes');
    const many = Array.from({ length: 33 }, (_, i) => `c${i}`).join(',');
    expect(checkProperties({ CATEGORIES: many })[0]?.message).toContain('at most 32 categories');
  });
});

describe('stored properties', () => {
  it('keeps text values of the five keys and reads anything else as absent', () => {
    expect(v.parse(StoredPropertiesSchema, { TRANSP: 'TRANSPARENT', X: 'y', COLOR: 3 })).toEqual({ TRANSP: 'TRANSPARENT' });
    expect(v.parse(StoredPropertiesSchema, { X: 'y' })).toBeUndefined();
    expect(v.parse(StoredPropertiesSchema, 'nope')).toBeUndefined();
  });
});

describe('uidsChangedText', () => {
  it('says how many events came back under new UIDs, naming the feed of several', () => {
    expect(uidsChangedText({ at: '2026-11-28T00:00:00Z', events: 1200, renamed: 1180 }, null)).toContain(
      'When this feed last changed, 1,180 of 1,200 events came back under new UIDs',
    );
    expect(uidsChangedText({ at: '', events: 3, renamed: 3 }, 'Feed 2 (School)')).toContain('When Feed 2 (School) last changed');
  });
});

describe('changedFeeds', () => {
  const changed = { at: '', events: 4, renamed: 4 };
  it('names the one address as this feed and each of several by its label', () => {
    expect(changedFeeds(null, String)).toEqual([]);
    expect(changedFeeds({ uidsChanged: changed, sources: [] }, String)).toEqual([{ label: null, changed }]);
    expect(changedFeeds({ uidsChanged: null, sources: [] }, String)).toEqual([]);
    expect(changedFeeds({ uidsChanged: null, sources: [{ uidsChanged: null }, { uidsChanged: changed }] }, (i) => `Feed ${i + 1}`)).toEqual([
      { label: 'Feed 2', changed },
    ]);
  });
});

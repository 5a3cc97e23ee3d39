import { describe, expect, it } from 'vitest';
import { defaultMapping } from './calendar';
import { liveState, publishFingerprint, stableJson } from './live';
import { emptyOptions } from './options';

describe('live state', () => {
  const calendar = { name: 'Work', url: 'https://example.com/a.ics' };
  it('stableJson ignores key order and undefined values', () => {
    expect(stableJson({ b: 1, a: [{ d: 2, c: undefined, e: 'x' }] })).toBe(stableJson({ a: [{ e: 'x', d: 2 }], b: 1 }));
  });
  it('the same calendar published is live; a changed template is not', () => {
    const published = publishFingerprint(calendar, defaultMapping(), emptyOptions());
    expect(liveState(published, publishFingerprint(calendar, defaultMapping(), emptyOptions()))).toBe('live');
    const edited = { ...defaultMapping(), SUMMARY: 'x ${SUMMARY}' };
    expect(liveState(published, publishFingerprint(calendar, edited, emptyOptions()))).toBe('changed');
    expect(liveState(published, publishFingerprint({ ...calendar, name: 'Home' }, defaultMapping(), emptyOptions()))).toBe('changed');
  });
  it('without a kept fingerprint the editor cannot tell', () => {
    expect(liveState(undefined, 'x')).toBe('unknown');
  });
});

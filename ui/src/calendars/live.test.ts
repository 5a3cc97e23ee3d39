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
  it('a calendar of one address gives the text it gave before sources, so it stays live', () => {
    expect(publishFingerprint(calendar, defaultMapping(), emptyOptions())).toBe(
      '{"config":{"mapping":{"DESCRIPTION":"${DESCRIPTION}","DTEND":"${DTEND}","DTSTART":"${DTSTART}","LOCATION":"${LOCATION}","SUMMARY":"${SUMMARY}"}},"name":"Work","url":"https://example.com/a.ics"}',
    );
  });
  it('keeps a source’s login as being there, never its password (the fingerprint is stored)', () => {
    const dav = { url: 'https://dav.example/alice/work/', kind: 'caldav' as const };
    const published = publishFingerprint(
      { name: 'Work', sources: [{ ...dav, auth: { username: 'alice', password: 'secret' } }] },
      defaultMapping(),
      emptyOptions(),
    );
    expect(published).not.toContain('secret');
    expect(published).toContain('"auth":"set"');
    expect(liveState(published, publishFingerprint({ name: 'Work', sources: [{ ...dav, auth: 'set' }] }, defaultMapping(), emptyOptions()))).toBe('live');
    expect(liveState(published, publishFingerprint({ name: 'Work', sources: [dav] }, defaultMapping(), emptyOptions()))).toBe('changed');
  });
  it('a changed source, prefix or label of a merged calendar is a change', () => {
    const sources = [
      { url: 'https://example.com/a.ics', prefix: '[A] ' },
      { url: 'https://example.com/b.ics', label: 'B' },
    ];
    const published = publishFingerprint({ name: 'Work', sources }, defaultMapping(), emptyOptions());
    expect(liveState(published, publishFingerprint({ name: 'Work', sources: [...sources] }, defaultMapping(), emptyOptions()))).toBe('live');
    for (const other of [
      [sources[0]],
      [sources[1], sources[0]],
      [{ ...sources[0], prefix: '[a] ' }, sources[1]],
      [sources[0], { url: 'https://example.com/b.ics' }],
    ]) {
      expect(liveState(published, publishFingerprint({ name: 'Work', sources: other as typeof sources }, defaultMapping(), emptyOptions()))).toBe('changed');
    }
  });
  it('without a kept fingerprint the editor cannot tell', () => {
    expect(liveState(undefined, 'x')).toBe('unknown');
  });
});

import { describe, expect, it } from 'vitest';
import { describeHealth } from '../lib/feedHealth';
import {
  agendaJsonUrl,
  agendaPublished,
  agendaUrl,
  GOOGLE_LOOKING_TEXT,
  GOOGLE_NEW_LABEL,
  GOOGLE_NEWEST_LABEL,
  GOOGLE_NONE_TEXT,
  GOOGLE_UNKNOWN_TEXT,
  googleAddressShown,
  iframeSnippet,
} from './agenda';
import { defaultMapping } from './calendar';
import { buildConfig, emptyOptions, isEmptyOptions, optionsReducer } from './options';

describe('the agenda page', () => {
  it('is at the feed’s address without .ics, and its JSON beside it', () => {
    expect(agendaUrl('https://example.org/cal/club.ics')).toBe('https://example.org/cal/club');
    expect(agendaJsonUrl('https://example.org/cal/club.ics')).toBe('https://example.org/cal/club.json');
  });

  it('is embedded by a snippet whose attributes are escaped', () => {
    const snippet = iframeSnippet('https://example.org/cal/club.ics', 'Tom & "Jerry" <club>');
    expect(snippet).toContain('src="https://example.org/cal/club"');
    expect(snippet).toContain('title="Tom &amp; &quot;Jerry&quot; &lt;club&gt;"');
    expect(snippet.startsWith('<iframe ')).toBe(true);
    expect(iframeSnippet('https://e.org/cal/x.ics', '  ')).toContain('title="Calendar"');
  });

  it('is published only when the last Build & Host sent agenda: true', () => {
    expect(agendaPublished(JSON.stringify({ name: 'x', url: 'u', config: { mapping: {}, agenda: true } }))).toBe(true);
    expect(agendaPublished(JSON.stringify({ name: 'x', url: 'u', config: { mapping: {} } }))).toBe(false);
    expect(agendaPublished(undefined)).toBe(false);
    expect(agendaPublished('not json')).toBe(false);
  });
});

describe('the "Agenda page" option', () => {
  it('sends agenda: true when on, and nothing when off (as before it existed)', () => {
    const on = optionsReducer(emptyOptions(), { type: 'setAgenda', agenda: true });
    expect(buildConfig(defaultMapping(), on).agenda).toBe(true);
    const off = optionsReducer(on, { type: 'setAgenda', agenda: false });
    expect('agenda' in buildConfig(defaultMapping(), off)).toBe(false);
    expect(isEmptyOptions(off)).toBe(true);
  });
});

describe("the Google section's address", () => {
  const at = new Date('2026-11-28T02:00:00Z');
  const ready = (googleAddress: string | null) => ({
    kind: 'ready' as const,
    report: describeHealth({ upstream: null, subscribers: [], flagged: false }, at),
    checkedAt: at,
    googleAddress,
  });
  const saved = 'https://cal.example/cal/work~0123456789.ics';
  const made = 'https://cal.example/cal/work~abcdef0123.ics';

  it("shows the newest address the calendar's status lists, as after a reload", () => {
    expect(googleAddressShown(null, { state: 'done', result: ready(saved) })).toEqual({ kind: 'address', url: saved, label: GOOGLE_NEWEST_LABEL });
    // The previous answer stays while the next check is on its way.
    expect(googleAddressShown(null, { state: 'checking', last: ready(saved) })).toEqual({ kind: 'address', url: saved, label: GOOGLE_NEWEST_LABEL });
  });

  it('shows the address just made over what the status said', () => {
    expect(googleAddressShown(made, { state: 'done', result: ready(saved) })).toEqual({ kind: 'address', url: made, label: GOOGLE_NEW_LABEL });
    expect(googleAddressShown(made, null)).toEqual({ kind: 'address', url: made, label: GOOGLE_NEW_LABEL });
  });

  it('says why there is none: still looking, none made, or the status could not be read', () => {
    expect(googleAddressShown(null, { state: 'checking', last: null })).toEqual({ kind: 'note', text: GOOGLE_LOOKING_TEXT });
    expect(googleAddressShown(null, { state: 'done', result: ready(null) })).toEqual({ kind: 'note', text: GOOGLE_NONE_TEXT });
    expect(googleAddressShown(null, { state: 'done', result: { kind: 'failed', message: 'no' } })).toEqual({ kind: 'note', text: GOOGLE_UNKNOWN_TEXT });
    expect(googleAddressShown(null, null)).toEqual({ kind: 'note', text: GOOGLE_UNKNOWN_TEXT });
  });
});

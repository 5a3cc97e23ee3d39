import { describe, expect, it } from 'vitest';
import { agendaJsonUrl, agendaPublished, agendaUrl, iframeSnippet } from './agenda';
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

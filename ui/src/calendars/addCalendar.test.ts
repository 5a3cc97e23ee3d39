import { describe, expect, it } from 'vitest';
import { askNewCalendar, NAME_PROMPT, retryPrompt, URL_PROMPT, type Ask } from './addCalendar';

function script(...answers: (string | null)[]) {
  const asked: [string, string | undefined][] = [];
  const ask: Ask = (message, defaultValue) => {
    asked.push([message, defaultValue]);
    return answers.shift() ?? null;
  };
  return { ask, asked };
}

describe('askNewCalendar', () => {
  it('aborts when the address prompt is cancelled, empty or blank', () => {
    for (const answer of [null, '', '   ']) {
      const { ask, asked } = script(answer);
      expect(askNewCalendar(ask, () => 'id')).toBeNull();
      expect(asked).toEqual([[URL_PROMPT, undefined]]);
    }
  });

  it('offers New Calendar as the name and uses it when the name is cancelled or empty', () => {
    for (const answer of [null, '', '  ']) {
      const { ask, asked } = script(' https://x.example/cal.ics ', answer);
      expect(askNewCalendar(ask, () => 'id-1')).toBe('/calendars/new?id=id-1&url=https%3A%2F%2Fx.example%2Fcal.ics&name=New+Calendar');
      expect(asked[1]).toEqual([NAME_PROMPT, 'New Calendar']);
    }
  });

  it('opens the editor with a new id, the address and the trimmed name', () => {
    const { ask } = script('webcal://x.example/cal.ics', ' Work ');
    expect(askNewCalendar(ask, () => 'abc')).toBe('/calendars/new?id=abc&url=webcal%3A%2F%2Fx.example%2Fcal.ics&name=Work');
  });

  it('asks again, with the reason and the typed text, until the address can be a feed', () => {
    const { ask, asked } = script('calendar.example.com/a.ics', 'ftp://x/a.ics', 'https://x/a.ics', 'A');
    expect(askNewCalendar(ask, () => 'id')).toBe('/calendars/new?id=id&url=https%3A%2F%2Fx%2Fa.ics&name=A');
    expect(asked[1]?.[0]).toMatch(/^The address needs to start with https:\/\//);
    expect(asked[1]?.[0].endsWith(URL_PROMPT)).toBe(true);
    expect(asked[1]?.[1]).toBe('calendar.example.com/a.ics');
    expect(asked[2]).toEqual([retryPrompt('Only http, https and webcal addresses can be subscribed to, not ftp:'), 'ftp://x/a.ics']);
  });

  it('gives up when the second prompt is cancelled: the editor does not open', () => {
    const { ask } = script('nonsense', null);
    expect(askNewCalendar(ask, () => 'id')).toBeNull();
  });

  it('makes v4 UUIDs by default', () => {
    const { ask } = script('https://x', 'A');
    const id = new URL(`http://h${askNewCalendar(ask) ?? ''}`).searchParams.get('id');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

import { describe, expect, it } from 'vitest';
import { askNewCalendar, NAME_PROMPT, URL_PROMPT, type Ask } from './addCalendar';

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

  it('makes v4 UUIDs by default', () => {
    const { ask } = script('https://x', 'A');
    const id = new URL(`http://h${askNewCalendar(ask) ?? ''}`).searchParams.get('id');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

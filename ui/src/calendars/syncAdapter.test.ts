// The adapter sync carries the calendar list through, held to this feature's own storage.
import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../lib/memoryStorage';
import { defaultMapping, type SavedCalendar } from './calendar';
import { CALENDARS_KEY, createCalendarStore } from './storage';
import { createCalendarsSyncAdapter } from './syncAdapter';

const calendar = (id: string, extra: Partial<SavedCalendar> = {}): SavedCalendar => ({
  id,
  name: `Calendar ${id}`,
  url: `https://example.com/${id}.ics`,
  mapping: defaultMapping(),
  lastBuiltAt: '2025-01-01T00:00:00.000Z',
  ...extra,
});

describe('the calendars adapter and the calendar store agree', () => {
  it('reads the list the store saved, as the store reads it', () => {
    const storage = new MemoryStorage();
    const store = createCalendarStore(storage);
    store.upsert(calendar('a', { editToken: 'tok', hostedUrl: 'http://h/cal/a.ics' }));
    store.upsert(calendar('b'));
    expect(createCalendarsSyncAdapter(storage).read()).toEqual(store.list());
  });

  it('writes a list from a vault that the store reads back, under its own key, checked as the store checks it', () => {
    const storage = new MemoryStorage();
    const adapter = createCalendarsSyncAdapter(storage);
    const arrived: unknown = [calendar('a'), { id: 'bad id!', url: 'https://x' }, { id: 'b', url: 'https://y' }];
    const list = adapter.parse(arrived);
    adapter.write(list);
    expect(createCalendarStore(storage).list()).toEqual(list);
    expect(list.map((c) => (c as SavedCalendar).id)).toEqual(['a', 'b']);
    // A calendar missing its mapping gets the feature's default one.
    expect((list[1] as SavedCalendar).mapping).toEqual(defaultMapping());
    expect(JSON.parse(storage.getItem(CALENDARS_KEY) ?? 'null')).toEqual(list);
    expect(adapter.parse('not a list')).toEqual([]);
  });

  it('throws when storage refuses, so the next sync tries again', () => {
    expect(() => createCalendarsSyncAdapter(new MemoryStorage(10)).write([calendar('a')])).toThrow();
    expect(() => createCalendarsSyncAdapter(null).write([])).toThrow();
  });
});

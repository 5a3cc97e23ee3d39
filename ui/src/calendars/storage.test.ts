import { describe, expect, it } from 'vitest';
import { defaultMapping, type SavedCalendar } from './calendar';
import { CALENDARS_KEY, createCalendarStore, parseCalendarList } from './storage';
import { MemoryStorage } from '../lib/memoryStorage';

const calendar = (id: string, name = 'Work'): SavedCalendar => ({
  id,
  name,
  url: `https://example.com/${id}.ics`,
  mapping: defaultMapping(),
  lastBuiltAt: '2025-01-01T00:00:00.000Z',
});

describe('calendar store: reading', () => {
  it('reads nothing from empty or missing storage', () => {
    expect(createCalendarStore(new MemoryStorage()).list()).toEqual([]);
    expect(createCalendarStore(null).list()).toEqual([]);
  });

  it('reads nothing from text that is not JSON or not a list', () => {
    const storage = new MemoryStorage();
    const store = createCalendarStore(storage);
    storage.setItem(CALENDARS_KEY, '{not json');
    expect(store.list()).toEqual([]);
    storage.setItem(CALENDARS_KEY, '{"id":"a"}');
    expect(store.list()).toEqual([]);
  });

  it('drops entries without an id or address, with a bad id, and repeated ids', () => {
    const entries = [
      null,
      'text',
      { name: 'no id', url: 'https://x' },
      { id: 'a', name: 'no url' },
      { id: 'bad id!', url: 'https://x' },
      { id: 'ok', name: 'First', url: 'https://x' },
      { id: 'ok', name: 'Second', url: 'https://y' },
    ];
    const list = parseCalendarList(entries);
    expect(list.map((c) => c.name)).toEqual(['First']);
  });

  it('fills a missing or partial mapping with the defaults and ignores non-text templates', () => {
    const [c] = parseCalendarList([{ id: 'a', url: 'https://x', mapping: { SUMMARY: 'X ${SUMMARY}', LOCATION: 3, OTHER: 'y' } }]);
    expect(c?.mapping).toEqual({ ...defaultMapping(), SUMMARY: 'X ${SUMMARY}' });
    expect(c?.name).toBe('');
    expect(c?.lastBuiltAt).toBe('');
    expect(c && 'editToken' in c).toBe(false);
  });

  it('keeps the edit token and hosted address of a published calendar', () => {
    const [c] = parseCalendarList([{ ...calendar('a'), editToken: 'tok', hostedUrl: 'http://h/cal/a.ics' }]);
    expect(c?.editToken).toBe('tok');
    expect(c?.hostedUrl).toBe('http://h/cal/a.ics');
  });
});

describe('calendar store: writing', () => {
  it('appends new calendars and replaces by id in place', () => {
    const storage = new MemoryStorage();
    const store = createCalendarStore(storage);
    expect(store.upsert(calendar('a', 'A'))).toEqual({ ok: true });
    expect(store.upsert(calendar('b', 'B'))).toEqual({ ok: true });
    expect(store.upsert(calendar('a', 'A2'))).toEqual({ ok: true });
    expect(store.list().map((c) => c.name)).toEqual(['A2', 'B']);
    expect(store.get('b')?.name).toBe('B');
    expect(store.get('zzz')).toBeNull();
    expect(JSON.parse(storage.getItem(CALENDARS_KEY) ?? '')).toHaveLength(2);
  });

  it('refuses to store a calendar the reader would drop', () => {
    const store = createCalendarStore(new MemoryStorage());
    expect(store.upsert({ ...calendar('a'), url: ' ' }).ok).toBe(false);
    expect(store.upsert({ ...calendar('a'), id: 'a b' }).ok).toBe(false);
    expect(store.list()).toEqual([]);
  });

  it('updates a stored calendar and leaves unknown ids alone', () => {
    const store = createCalendarStore(new MemoryStorage());
    store.upsert(calendar('a'));
    expect(store.update('a', (c) => ({ ...c, editToken: 't', hostedUrl: 'http://h/cal/a.ics' }))).toEqual({ ok: true });
    expect(store.get('a')?.editToken).toBe('t');
    expect(store.update('missing', (c) => ({ ...c, name: 'x' }))).toEqual({ ok: true });
    expect(store.list()).toHaveLength(1);
    store.update('a', (c) => {
      const unpublished = { ...c };
      delete unpublished.editToken;
      delete unpublished.hostedUrl;
      return unpublished;
    });
    expect(store.get('a')?.editToken).toBeUndefined();
  });

  it('removes by id', () => {
    const store = createCalendarStore(new MemoryStorage());
    store.upsert(calendar('a'));
    store.upsert(calendar('b'));
    expect(store.remove('a')).toEqual({ ok: true });
    expect(store.remove('a')).toEqual({ ok: true });
    expect(store.list().map((c) => c.id)).toEqual(['b']);
  });

  it('reports a full store and keeps what was saved before', () => {
    const storage = new MemoryStorage(400);
    const store = createCalendarStore(storage);
    expect(store.upsert(calendar('a'))).toEqual({ ok: true });
    const result = store.upsert({ ...calendar('b'), name: 'x'.repeat(500) });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(/full/);
    expect(store.list().map((c) => c.id)).toEqual(['a']);
  });

  it('reports missing storage instead of throwing', () => {
    expect(createCalendarStore(null).upsert(calendar('a')).ok).toBe(false);
  });
});

describe('stored format', () => {
  it('reads a list as earlier versions wrote it and writes it back unchanged', () => {
    const raw =
      '[{"id":"a","name":"Work","url":"https://x/a.ics","mapping":{"SUMMARY":"S ${SUMMARY}","DESCRIPTION":"${DESCRIPTION}",' +
      '"LOCATION":"${LOCATION}","DTSTART":"${DTSTART}","DTEND":"${DTEND}"},"lastBuiltAt":"2025-01-01T00:00:00.000Z",' +
      '"editToken":"tok","hostedUrl":"http://h/cal/a.ics"},' +
      '{"id":"b","name":"","url":"https://x/b.ics","mapping":{"SUMMARY":"${SUMMARY}","DESCRIPTION":"${DESCRIPTION}",' +
      '"LOCATION":"${LOCATION}","DTSTART":"${DTSTART}","DTEND":"${DTEND}"},"lastBuiltAt":""}]';
    const storage = new MemoryStorage();
    storage.setItem(CALENDARS_KEY, raw);
    const store = createCalendarStore(storage);
    const [a, b] = store.list();
    expect(a).toMatchObject({ id: 'a', editToken: 'tok', hostedUrl: 'http://h/cal/a.ics' });
    expect(b && 'hostedUrl' in b).toBe(false);
    if (a) store.upsert(a);
    expect(storage.getItem(CALENDARS_KEY)).toBe(raw);
  });

  it('drops a blank edit token or hosted address, key and all', () => {
    const [c] = parseCalendarList([{ ...calendar('a'), editToken: ' ', hostedUrl: 3 }]);
    expect(c && 'editToken' in c).toBe(false);
    expect(c && 'hostedUrl' in c).toBe(false);
  });
});

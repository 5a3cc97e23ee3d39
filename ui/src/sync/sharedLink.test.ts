import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../lib/memoryStorage';
import { HISTORY_FIELD, keepSharedLink, readSharedLink, sessionKey, type HistoryLike, type Place } from './sharedLink';

const id = '0123456789abcdef0123456789abcdef';
const key = 'a-secret_key';

/** A tab's history: one entry, replaced in place. */
function tab(url: string, state: unknown = { idx: 0, key: 'router' }) {
  const entry = { url: new URL(url), state };
  const history: HistoryLike = {
    get state() {
      return entry.state;
    },
    replaceState(next, _unused, to) {
      entry.state = next;
      entry.url = new URL(to, entry.url);
    },
  };
  const place = (): Place => ({ hash: entry.url.hash, pathname: entry.url.pathname, search: entry.url.search });
  return { entry, history, place };
}

describe('the shared deck link on its page', () => {
  it('leaves the address bar without the key, keeping path, query and the router’s state', () => {
    const session = new MemoryStorage();
    const { entry, history, place } = tab(`https://h.example/sync/deck?from=mail#s=${id}&k=${key}`);
    const link = readSharedLink(place(), history.state, session);
    expect(link).toEqual({ id, key });
    keepSharedLink(link, place(), history, session);
    expect(entry.url.href).toBe('https://h.example/sync/deck?from=mail');
    expect(entry.url.href).not.toContain('k=');
    expect(entry.state).toEqual({ idx: 0, key: 'router', [HISTORY_FIELD]: id });
    // The key is in this tab's session for that share, and nowhere else.
    expect([...session.data.entries()]).toEqual([[sessionKey(id), key]]);
    expect(JSON.stringify(entry.state)).not.toContain(key);
  });

  it('opens the same deck again after a reload in the same tab', () => {
    const session = new MemoryStorage();
    const { history, place } = tab(`https://h.example/sync/deck#s=${id}&k=${key}`);
    keepSharedLink(readSharedLink(place(), history.state, session), place(), history, session);
    // A reload: the same entry (its state), the address without the fragment.
    expect(place().hash).toBe('');
    expect(readSharedLink(place(), history.state, session)).toEqual({ id, key });
    // Reading again changes nothing.
    keepSharedLink(readSharedLink(place(), history.state, session), place(), history, session);
    expect(readSharedLink(place(), history.state, session)).toEqual({ id, key });
  });

  it('opens nothing in another tab (a fresh session), or for an entry that showed no share', () => {
    const { history, place } = tab(`https://h.example/sync/deck#s=${id}&k=${key}`);
    keepSharedLink(readSharedLink(place(), history.state, new MemoryStorage()), place(), history, new MemoryStorage());
    expect(readSharedLink(place(), history.state, new MemoryStorage())).toBeNull();
    expect(readSharedLink({ hash: '', pathname: '/sync/deck', search: '' }, null, new MemoryStorage())).toBeNull();
  });

  it('takes an incomplete fragment out too, and opens nothing from it', () => {
    const session = new MemoryStorage();
    const { entry, history, place } = tab(`https://h.example/sync/deck#s=${id}`);
    const link = readSharedLink(place(), history.state, session);
    expect(link).toBeNull();
    keepSharedLink(link, place(), history, session);
    expect(entry.url.hash).toBe('');
    expect(session.data.size).toBe(0);
  });

  it('still clears the address bar where session storage is refused', () => {
    const { entry, history, place } = tab(`https://h.example/sync/deck#s=${id}&k=${key}`);
    const refusing = new MemoryStorage(0);
    keepSharedLink(readSharedLink(place(), history.state, refusing), place(), history, refusing);
    expect(entry.url.hash).toBe('');
    expect(entry.state).toEqual({ idx: 0, key: 'router' });
  });
});

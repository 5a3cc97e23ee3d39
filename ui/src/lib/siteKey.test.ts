import { describe, expect, it } from 'vitest';
import { MemoryStorage } from './memoryStorage';
import { createSiteKeyStore, keyDeps, LEGACY_KEYS, MAX_KEY_ATTEMPTS, SITE_KEY, withSiteKey, type KeyDeps } from './siteKey';

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function deps(stored: string | null, answers: (string | null)[]) {
  const asked: boolean[] = [];
  let key = stored;
  const d: KeyDeps = {
    readKey: () => key,
    writeKey: (k) => (key = k),
    clearKey: () => (key = null),
    askKey: (refused) => {
      asked.push(refused);
      return answers.shift() ?? null;
    },
  };
  return { d, asked, stored: () => key };
}

describe('the stored key', () => {
  it('is kept trimmed under one key, read back and cleared', () => {
    const storage = new MemoryStorage();
    const store = createSiteKeyStore(storage);
    expect(store.read()).toBeNull();
    expect(store.write('  secret ')).toBe(true);
    expect(storage.getItem(SITE_KEY)).toBe('secret');
    expect(store.read()).toBe('secret');
    store.clear();
    expect(store.read()).toBeNull();
  });

  it('treats a blank stored key as none', () => {
    const storage = new MemoryStorage();
    storage.setItem(SITE_KEY, '   ');
    expect(createSiteKeyStore(storage).read()).toBeNull();
  });

  it.each(LEGACY_KEYS.map((key) => [key]))('takes a key kept under %s once, and removes the older keys', (old) => {
    const storage = new MemoryStorage();
    storage.setItem(old, ' s3cret ');
    expect(createSiteKeyStore(storage).read()).toBe('s3cret');
    expect([...storage.data.keys()]).toEqual([SITE_KEY]);
    // Once moved, a later page reads the one key.
    expect(createSiteKeyStore(storage).read()).toBe('s3cret');
  });

  it("prefers the calendar editor's copy when both older keys are there, and never overwrites the one key", () => {
    const both = new MemoryStorage();
    both.setItem('sync:publishKey', 'from-sync');
    both.setItem('calendars:publishKey', 'from-calendars');
    expect(createSiteKeyStore(both).read()).toBe('from-calendars');
    expect(both.getItem('sync:publishKey')).toBeNull();

    const current = new MemoryStorage();
    current.setItem(SITE_KEY, 'current');
    current.setItem('calendars:publishKey', 'old');
    expect(createSiteKeyStore(current).read()).toBe('current');
    expect([...current.data.keys()]).toEqual([SITE_KEY]);
  });

  it('a blank older key is dropped, not moved', () => {
    const storage = new MemoryStorage();
    storage.setItem('calendars:publishKey', ' ');
    storage.setItem('sync:publishKey', 'real');
    expect(createSiteKeyStore(storage).read()).toBe('real');
  });

  it('says when the key could not be kept, and works without storage', () => {
    expect(createSiteKeyStore(new MemoryStorage(5)).write('a-long-key')).toBe(false);
    const none = createSiteKeyStore(null);
    expect(none.write('k')).toBe(false);
    expect(none.read()).toBeNull();
  });
});

describe('withSiteKey', () => {
  it('sends the stored key and does not ask when the call succeeds', async () => {
    const { d, asked } = deps('k', []);
    const sent: (string | null)[] = [];
    const outcome = await withSiteKey((key) => {
      sent.push(key);
      return Promise.resolve('ok');
    }, d);
    expect(outcome).toEqual({ kind: 'done', value: 'ok' });
    expect(sent).toEqual(['k']);
    expect(asked).toEqual([]);
  });

  it('asks on a 401, keeps the answer and retries with it', async () => {
    const { d, asked, stored } = deps(null, [' secret ']);
    const sent: (string | null)[] = [];
    const outcome = await withSiteKey((key) => {
      sent.push(key);
      return key === 'secret' ? Promise.resolve(1) : Promise.reject(new HttpError(401, 'needs key'));
    }, d);
    expect(outcome).toEqual({ kind: 'done', value: 1 });
    expect(sent).toEqual([null, 'secret']);
    expect(asked).toEqual([false]);
    expect(stored()).toBe('secret');
  });

  it('waits for an answer given later (a dialog), as for one given at once', async () => {
    const { d, stored } = deps(null, []);
    const sent: (string | null)[] = [];
    const outcome = await withSiteKey(
      (key) => {
        sent.push(key);
        return key === 'late' ? Promise.resolve('ok') : Promise.reject(new HttpError(401, 'key'));
      },
      { ...d, askKey: () => Promise.resolve().then(() => ' late ') },
    );
    expect(outcome).toEqual({ kind: 'done', value: 'ok' });
    expect(sent).toEqual([null, 'late']);
    expect(stored()).toBe('late');
  });

  it('forgets a refused stored key and says so when asking; cancelling stops', async () => {
    const { d, asked, stored } = deps('old', [null]);
    const outcome = await withSiteKey(() => Promise.reject(new HttpError(401, 'wrong key')), d);
    expect(outcome).toEqual({ kind: 'cancelled' });
    expect(asked).toEqual([true]);
    expect(stored()).toBeNull();
  });

  it('asks with the refused words after a typed key was refused too', async () => {
    const { d, asked } = deps(null, ['wrong', 'right']);
    const outcome = await withSiteKey((key) => (key === 'right' ? Promise.resolve('in') : Promise.reject(new HttpError(401, 'no'))), d);
    expect(outcome).toEqual({ kind: 'done', value: 'in' });
    expect(asked).toEqual([false, true]);
  });

  it('passes other failures through with the server text and the error itself', async () => {
    const { d, asked } = deps(null, []);
    const error = new HttpError(403, 'needs its edit token');
    const outcome = await withSiteKey(() => Promise.reject(error), d);
    expect(outcome).toEqual({ kind: 'failed', message: 'needs its edit token', status: 403, error });
    expect(asked).toEqual([]);
  });

  it('reads an error without a status as not from the server', async () => {
    const { d } = deps(null, []);
    const outcome = await withSiteKey(() => Promise.reject(new TypeError('Failed to fetch')), d);
    expect(outcome).toMatchObject({ kind: 'failed', message: 'Failed to fetch', status: 0 });
  });

  it('gives up after a few refused keys', async () => {
    const { d, asked } = deps(null, ['a', 'b', 'c', 'd', 'e']);
    const outcome = await withSiteKey(() => Promise.reject(new HttpError(401, 'wrong key')), d);
    expect(outcome).toMatchObject({ kind: 'failed', message: 'wrong key', status: 401 });
    expect(asked).toHaveLength(MAX_KEY_ATTEMPTS - 1);
  });

  it('does not ask for the key when the address is throttled', async () => {
    const { d, asked } = deps('k', ['x']);
    const outcome = await withSiteKey(() => Promise.reject(new HttpError(429, 'try again in 3 seconds')), d);
    expect(outcome).toMatchObject({ kind: 'failed', message: 'try again in 3 seconds', status: 429 });
    expect(asked).toEqual([]);
  });
});

describe('keyDeps', () => {
  it("asks with the feature's words and keeps the answer in the one store", async () => {
    const storage = new MemoryStorage();
    const questions: string[] = [];
    const d = keyDeps(createSiteKeyStore(storage), { ask: 'Key?', refused: 'Not that one. Key?' }, (text) => {
      questions.push(text);
      return questions.length === 1 ? 'bad' : 'good';
    });
    const outcome = await withSiteKey((key) => (key === 'good' ? Promise.resolve(key) : Promise.reject(new HttpError(401, 'no'))), d);
    expect(outcome).toEqual({ kind: 'done', value: 'good' });
    expect(questions).toEqual(['Key?', 'Not that one. Key?']);
    expect(storage.getItem(SITE_KEY)).toBe('good');
  });
});

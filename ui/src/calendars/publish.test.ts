import { describe, expect, it } from 'vitest';
import { ApiError } from './api';
import { aboutTheVisitor, withPublishKey, type KeyDeps } from './publish';

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

describe('withPublishKey', () => {
  it('sends the stored key and does not ask when the call succeeds', async () => {
    const { d, asked } = deps('k', []);
    const sent: (string | null)[] = [];
    const outcome = await withPublishKey((key) => {
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
    const outcome = await withPublishKey((key) => {
      sent.push(key);
      return key === 'secret' ? Promise.resolve(1) : Promise.reject(new ApiError(401, 'needs key'));
    }, d);
    expect(outcome).toEqual({ kind: 'done', value: 1 });
    expect(sent).toEqual([null, 'secret']);
    expect(asked).toEqual([false]);
    expect(stored()).toBe('secret');
  });

  it('forgets a refused stored key and says so when asking', async () => {
    const { d, asked, stored } = deps('old', [null]);
    const outcome = await withPublishKey(() => Promise.reject(new ApiError(401, 'wrong key')), d);
    expect(outcome).toEqual({ kind: 'cancelled' });
    expect(asked).toEqual([true]);
    expect(stored()).toBeNull();
  });

  it('passes other failures through with the server text', async () => {
    const { d, asked } = deps(null, []);
    const outcome = await withPublishKey(() => Promise.reject(new ApiError(403, 'needs its edit token')), d);
    expect(outcome).toEqual({ kind: 'failed', message: 'needs its edit token', status: 403 });
    expect(asked).toEqual([]);
  });

  it('gives up after a few refused keys', async () => {
    const { d, asked } = deps(null, ['a', 'b', 'c', 'd', 'e']);
    const outcome = await withPublishKey(() => Promise.reject(new ApiError(401, 'wrong key')), d);
    expect(outcome).toEqual({ kind: 'failed', message: 'wrong key', status: 401 });
    expect(asked).toHaveLength(3);
  });

  it('does not ask for the key when the address is throttled', async () => {
    const { d, asked } = deps('k', ['x']);
    const outcome = await withPublishKey(() => Promise.reject(new ApiError(429, 'try again in 3 seconds')), d);
    expect(outcome).toEqual({ kind: 'failed', message: 'try again in 3 seconds', status: 429 });
    expect(asked).toEqual([]);
  });
});

describe('aboutTheVisitor', () => {
  it('is true for a missing key and for throttling, which need no feed error around them', () => {
    expect(aboutTheVisitor(401)).toBe(true);
    expect(aboutTheVisitor(429)).toBe(true);
    expect(aboutTheVisitor(502)).toBe(false);
    expect(aboutTheVisitor(0)).toBe(false);
  });
});

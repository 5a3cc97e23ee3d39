import { describe, expect, it } from 'vitest';
import { preloadable, settledWithin } from './preload';

/** A promise settled by hand. */
function deferred<T>() {
  let resolve: (value: T) => void = () => undefined;
  let reject: (error: unknown) => void = () => undefined;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('preloadable code', () => {
  it('is fetched once whoever asks, and known to be here only once it arrived', async () => {
    const fetched = deferred<string>();
    let fetches = 0;
    const code = preloadable(() => {
      fetches += 1;
      return fetched.promise;
    });
    expect(fetches).toBe(0);
    const first = code.load();
    const second = code.load();
    expect(fetches).toBe(1);
    expect(code.loaded()).toBeUndefined();
    fetched.resolve('screen');
    expect(await first).toBe('screen');
    expect(await second).toBe('screen');
    expect(code.loaded()).toBe('screen');
    expect(await code.load()).toBe('screen');
    expect(fetches).toBe(1);
  });

  it('is fetched again after a failed fetch', async () => {
    const answers = [Promise.reject(new Error('offline')), Promise.resolve('screen')];
    let fetches = 0;
    const code = preloadable(() => {
      fetches += 1;
      return answers.shift() ?? Promise.reject(new Error('no more'));
    });
    await expect(code.load()).rejects.toThrow('offline');
    expect(code.loaded()).toBeUndefined();
    expect(await code.load()).toBe('screen');
    expect(fetches).toBe(2);
    expect(code.loaded()).toBe('screen');
  });
});

describe('waiting for the parts of a screen', () => {
  const never = () => new Promise<void>(() => undefined);

  it('ends when every part has arrived or failed, and never rejects', async () => {
    const a = deferred<string>();
    const b = deferred<string>();
    let done = false;
    const waiting = settledWithin([a.promise, b.promise], 1000, never).then(() => (done = true));
    a.resolve('router');
    await Promise.resolve();
    expect(done).toBe(false);
    b.reject(new Error('offline'));
    await waiting;
    expect(done).toBe(true);
  });

  it('ends at the deadline while a part is still on its way', async () => {
    const deadline = deferred<undefined>();
    const asked: number[] = [];
    const waiting = settledWithin([new Promise(() => undefined)], 800, (ms) => {
      asked.push(ms);
      return deadline.promise;
    });
    deadline.resolve(undefined);
    await waiting;
    expect(asked).toEqual([800]);
  });

  it('ends at once when there is nothing to wait for', async () => {
    await settledWithin([], 800, never);
  });
});

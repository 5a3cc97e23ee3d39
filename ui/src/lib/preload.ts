// A part of the app's code loaded on demand, fetched once by whoever asks first (the start-up,
// which knows the address, or the screen when it renders), and known to be here once it arrived,
// so a screen can render it at once instead of suspending on it.

export interface Preloadable<T> {
  /** Starts the fetch unless it has started; a failed fetch is tried again by the next call. */
  load: () => Promise<T>;
  /** What arrived, or undefined while it has not. */
  loaded: () => T | undefined;
}

export function preloadable<T>(fetch: () => Promise<T>): Preloadable<T> {
  let arrived: { value: T } | undefined;
  let pending: Promise<T> | undefined;
  return {
    load: () =>
      (pending ??= fetch().then(
        (value) => {
          arrived = { value };
          return value;
        },
        (error: unknown) => {
          pending = undefined;
          throw error;
        },
      )),
    loaded: () => arrived?.value,
  };
}

/**
 * What `parts` and a deadline decide: resolves when every part has arrived or failed, or when
 * `ms` have passed, whichever is first; never rejects (a part that failed fails again where it
 * renders, as it would have without the wait).
 */
export function settledWithin(parts: Promise<unknown>[], ms: number, wait: (ms: number) => Promise<void>): Promise<void> {
  const all = Promise.allSettled(parts).then(() => undefined);
  return parts.length === 0 ? Promise.resolve() : Promise.race([all, wait(ms)]);
}

// React glue for the latest-only runner: renders on the server as inputs change, debounced, with
// stale answers dropped (see latest.ts).
import { startTransition, useEffect, useRef, useState } from 'react';
import { ApiError } from './api';
import { createLatestRunner, type LatestRunner } from './latest';

export type Rendered<T> =
  | { state: 'idle' }
  | { state: 'ready'; value: T }
  /** `field`: the input the server says the failure is about (see ApiError). */
  | { state: 'failed'; message: string; field: string | null };

/**
 * Runs `run(input)` whenever `input` changes (by identity) and is not null; the newest answer
 * wins. `run` must be stable (a module function).
 */
export function useLatestRender<In, Out>(input: In | null, run: (input: In) => Promise<Out>, delayMs: number): Rendered<Out> {
  const [rendered, setRendered] = useState<Rendered<Out>>({ state: 'idle' });
  const runner = useRef<LatestRunner<In> | null>(null);

  useEffect(() => {
    const latest = createLatestRunner<In, Out>({
      run,
      delayMs,
      // Drawn in slices (a transition, as the first render in main.tsx), yielding to typing.
      onResult: (value) => startTransition(() => setRendered({ state: 'ready', value })),
      onError: (error) =>
        setRendered({
          state: 'failed',
          message: error instanceof Error ? error.message : String(error),
          field: error instanceof ApiError ? error.field : null,
        }),
    });
    runner.current = latest;
    return () => {
      latest.dispose();
      runner.current = null;
    };
  }, [run, delayMs]);

  useEffect(() => {
    if (input !== null) runner.current?.request(input);
  }, [input]);

  return input === null ? { state: 'idle' } : rendered;
}

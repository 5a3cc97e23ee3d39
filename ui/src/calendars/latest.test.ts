import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLatestRunner } from './latest';

interface Call {
  request: string;
  resolve: (value: string) => void;
  reject: (error: unknown) => void;
}

function setup(delayMs = 100) {
  const calls: Call[] = [];
  const results: string[] = [];
  const errors: string[] = [];
  const runner = createLatestRunner<string, string>({
    delayMs,
    run: (request) =>
      new Promise<string>((resolve, reject) => {
        calls.push({ request, resolve, reject });
      }),
    onResult: (result) => results.push(result),
    onError: (error) => errors.push(String(error)),
  });
  return { runner, calls, results, errors };
}

const settle = () => vi.advanceTimersByTimeAsync(0);

describe('latest-only request runner', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('debounces: only the last of quick requests is sent, after the quiet time', async () => {
    const { runner, calls } = setup();
    runner.request('a');
    await vi.advanceTimersByTimeAsync(50);
    runner.request('ab');
    await vi.advanceTimersByTimeAsync(99);
    expect(calls).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls.map((c) => c.request)).toEqual(['ab']);
  });

  it('delivers the answer of the newest request', async () => {
    const { runner, calls, results } = setup();
    runner.request('a');
    await vi.advanceTimersByTimeAsync(100);
    calls[0]?.resolve('A');
    await settle();
    expect(results).toEqual(['A']);
  });

  it('keeps at most one request in flight and sends the newest when it ends', async () => {
    const { runner, calls, results } = setup();
    runner.request('a');
    await vi.advanceTimersByTimeAsync(100);
    runner.request('ab');
    await vi.advanceTimersByTimeAsync(100);
    runner.request('abc');
    await vi.advanceTimersByTimeAsync(100);
    expect(calls.map((c) => c.request)).toEqual(['a']);
    expect(runner.busy()).toBe(true);
    calls[0]?.resolve('A');
    await settle();
    // The answer for 'a' is stale: 'abc' was asked for since.
    expect(results).toEqual([]);
    expect(calls.map((c) => c.request)).toEqual(['a', 'abc']);
    calls[1]?.resolve('ABC');
    await settle();
    expect(results).toEqual(['ABC']);
    expect(runner.busy()).toBe(false);
  });

  it('waits for the quiet time before sending the next one even when the previous has ended', async () => {
    const { runner, calls } = setup();
    runner.request('a');
    await vi.advanceTimersByTimeAsync(100);
    runner.request('ab');
    calls[0]?.resolve('A');
    await settle();
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(100);
    expect(calls.map((c) => c.request)).toEqual(['a', 'ab']);
  });

  it('reports errors of the newest request only', async () => {
    const { runner, calls, errors } = setup();
    runner.request('a');
    await vi.advanceTimersByTimeAsync(100);
    runner.request('b');
    calls[0]?.reject(new Error('old'));
    await vi.advanceTimersByTimeAsync(100);
    calls[1]?.reject(new Error('new'));
    await settle();
    expect(errors).toEqual(['Error: new']);
  });

  it('drops everything after dispose', async () => {
    const { runner, calls, results } = setup();
    runner.request('a');
    await vi.advanceTimersByTimeAsync(100);
    runner.request('b');
    runner.dispose();
    calls[0]?.resolve('A');
    await vi.advanceTimersByTimeAsync(500);
    expect(results).toEqual([]);
    expect(calls).toHaveLength(1);
  });
});

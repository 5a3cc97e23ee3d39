// The browser's optimiser (fsrs-browser's WebAssembly, loaded on one thread as the Worker loads it)
// against fsrs-rs-python (FSRS's Rust optimiser for Python, from PyPI) on the same simulated log:
// the parameters agree within the optimisers' own drift between releases, and by fsrs-rs's own
// log-loss the browser's fit is as good as the reference's and better than the defaults. Needs the
// reference's Python in HEARTH_FSRS_PYTHON (`make test-fsrs` sets it): fails, never skips, without.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { expect, test } from 'vitest';
import { trainingSet } from './optimise';
import { DEFAULT_PARAMS, PARAMS_COUNT } from './schedule';
import { simulatedLog } from './simulatedLog';

test('the fitted parameters match fsrs-rs-python’s on the same log', async () => {
  const python = process.env.HEARTH_FSRS_PYTHON;
  expect(python, 'HEARTH_FSRS_PYTHON: the Python of tests/fsrs/venv.sh (run `make test-fsrs`)').toBeTruthy();
  // The package's glue registers a thread helper on `self` when loaded (a Worker's global).
  Object.assign(globalThis, { self: globalThis, addEventListener: () => undefined });
  const { computeParams, startOptimiser } = await import('./fsrsWasm');
  const wasm = createRequire(import.meta.url).resolve('fsrs-browser/fsrs_browser_bg.wasm');
  startOptimiser(new Uint8Array(readFileSync(wasm)));

  const set = trainingSet(simulatedLog(3000, Date.UTC(2026, 9, 1)));
  expect(set.count).toBeGreaterThan(1000);
  const browser = computeParams(set.ratings, set.deltas, set.lengths);
  expect(browser).toHaveLength(PARAMS_COUNT);

  const script = new URL('../../../../tests/fsrs/reference.py', import.meta.url).pathname;
  const input = JSON.stringify({ ratings: [...set.ratings], deltas: [...set.deltas], lengths: [...set.lengths], browser });
  const run = spawnSync(python as string, [script], { input, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  expect(run.status, run.stderr).toBe(0);
  const reference = JSON.parse(run.stdout) as { params: number[]; logLoss: { defaults: number; reference: number; browser: number } };

  expect(reference.params).toHaveLength(PARAMS_COUNT);
  for (const [i, expected] of reference.params.entries()) {
    const actual = browser[i] as number;
    expect(Math.abs(actual - expected), `w${i}: browser ${actual}, fsrs-rs-python ${expected}`).toBeLessThanOrEqual(0.1 + 0.25 * Math.abs(expected));
  }
  // Both moved from the defaults the same way where the log says so (the learner's first stabilities are lower).
  expect(browser[0]).toBeLessThan(DEFAULT_PARAMS[0] as number);
  expect(reference.logLoss.browser).toBeLessThan(reference.logLoss.defaults);
  expect(Math.abs(reference.logLoss.browser - reference.logLoss.reference)).toBeLessThan(0.005);
  console.log(
    `log-loss by fsrs-rs: defaults ${reference.logLoss.defaults.toFixed(4)}, fsrs-rs-python ${reference.logLoss.reference.toFixed(4)}, browser ${reference.logLoss.browser.toFixed(4)}`,
  );
});

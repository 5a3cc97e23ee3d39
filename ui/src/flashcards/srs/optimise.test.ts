// "Optimise my schedule": the log as Anki's training items, Anki's thresholds (fewer than 8 usable
// reviews keep the parameters, fewer than 64 fit only the first four), the keep-only-if-better
// rule, with FSRS's own optimiser (the WebAssembly the Worker loads, on one thread), and the
// schedule derived with a deck's parameters being a pure function of what sync carries.
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { candidateParams, decide, evaluate, INITIAL_STABILITIES, trainingSet, type TrainingSet } from './optimise';
import { WASM_BYTES } from './optimiseProtocol';
import { deriveItems, parseReviews, recordMark, toStored, withSettings, emptyReviews, type ReviewEntry } from './reviewLog';
import { DEFAULT_PARAMS, parseParams, parseRetention } from './schedule';
import { LEARNER_PARAMS, simulatedLog } from './simulatedLog';

const DAY = 86_400_000;
const T0 = new Date(2026, 0, 5, 9).getTime();
const END = new Date(2026, 9, 1, 12).getTime();
const wasmPath = createRequire(import.meta.url).resolve('fsrs-browser/fsrs_browser_bg.wasm');

let fit: (set: TrainingSet) => number[];
let unshare: (bytes: Uint8Array) => boolean;

beforeAll(async () => {
  // The package's glue registers a thread helper on `self` when loaded (a Worker's global).
  Object.assign(globalThis, { self: globalThis, addEventListener: () => undefined });
  const wasm = await import('./fsrsWasm');
  wasm.startOptimiser(new Uint8Array(readFileSync(wasmPath)));
  fit = (set) => wasm.computeParams(set.ratings, set.deltas, set.lengths);
  unshare = wasm.unshareMemory;
});

/** A log with `usable` usable reviews: items reviewed on day 0 and then once on a later day each. */
function logWith(usable: number): ReviewEntry[] {
  const log: ReviewEntry[] = [];
  for (let i = 0; i < usable; i += 1) {
    log.push([`c${i}`, T0 + i * 60_000, i % 4 === 0 ? 'again' : 'good']);
    log.push([`c${i}`, T0 + (1 + (i % 5)) * DAY + i * 60_000, i % 3 === 0 ? 'again' : 'good']);
  }
  return log.sort((a, b) => a[1] - b[1]);
}

describe('training items', () => {
  it('gives one item per later-day mark, with its history and the days between marks; seeded items are left out', () => {
    const log: ReviewEntry[] = [
      ['a', T0, 'again'],
      ['a', T0 + 10 * 60_000, 'good'],
      ['b', T0 + 20 * 60_000, 'good'],
      ['a', T0 + 2 * DAY, 'good'],
      ['a', T0 + 7 * DAY, 'again'],
      ['s', T0 + 7 * DAY + 1, 'good'],
      ['s', T0 + 9 * DAY, 'good'],
    ];
    const set = trainingSet(log, { s: { through: 0, state: [0, 1, 5, 0, 0, 1, 0, 2, 0] } });
    expect(set.count).toBe(2);
    expect([...set.lengths]).toEqual([3, 4]);
    expect([...set.ratings]).toEqual([1, 3, 3, 1, 3, 3, 1]);
    expect([...set.deltas]).toEqual([0, 0, 2, 0, 0, 2, 5]);
  });
});

describe('Anki’s thresholds, with FSRS’s optimiser', () => {
  it('7 usable reviews: nothing is fitted and the parameters stay', () => {
    const set = trainingSet(logWith(7));
    expect(set.count).toBe(7);
    expect(decide(set, DEFAULT_PARAMS, null)).toEqual({ kind: 'too-few', reviews: 7 });
  });

  it('8 to 63 usable reviews: only the first four parameters change, the rest stay as in use', () => {
    // In use: parameters of the deck's own (not the defaults the optimiser starts from).
    const current = LEARNER_PARAMS;
    for (const usable of [8, 40, 63]) {
      const set = trainingSet(logWith(usable));
      expect(set.count).toBe(usable);
      const fitted = fit(set);
      const candidate = candidateParams(current, fitted, set.count);
      expect(candidate?.slice(INITIAL_STABILITIES)).toEqual(current.slice(INITIAL_STABILITIES));
      // fsrs-rs itself fits the first four only from enough reviews per first grade.
      if (usable >= 40) expect(candidate?.slice(0, INITIAL_STABILITIES)).not.toEqual(DEFAULT_PARAMS.slice(0, INITIAL_STABILITIES));
      const outcome = decide(set, current, fitted);
      expect(outcome.kind).not.toBe('too-few');
      if (outcome.kind === 'improved') expect(outcome.params.slice(INITIAL_STABILITIES)).toEqual(current.slice(INITIAL_STABILITIES));
      if (outcome.kind !== 'too-few') expect(outcome.partial).toBe(true);
    }
  });

  it('64 usable reviews or more: all of them are fitted, and kept as they fit better', () => {
    const set = trainingSet(simulatedLog(600, END));
    expect(set.count).toBeGreaterThanOrEqual(64);
    const outcome = decide(set, DEFAULT_PARAMS, fit(set));
    expect(outcome.kind).toBe('improved');
    if (outcome.kind !== 'improved') return;
    expect(outcome.partial).toBe(false);
    expect(outcome.after.logLoss).toBeLessThan(outcome.before.logLoss);
    const changed = outcome.params.filter((part, i) => part !== DEFAULT_PARAMS[i]).length;
    expect(changed).toBeGreaterThan(INITIAL_STABILITIES);
    expect(parseParams(outcome.params)).toEqual(outcome.params);
  });
});

describe('keep only if better', () => {
  const set = trainingSet(simulatedLog(600, END));

  it('a fit worse than the parameters in use keeps them, with both fits shown', () => {
    const worse = DEFAULT_PARAMS.map((part, i) => (i < 4 ? 100 : part));
    const outcome = decide(set, LEARNER_PARAMS, worse);
    expect(outcome.kind).toBe('kept');
    if (outcome.kind !== 'kept') return;
    expect(outcome.after.logLoss).toBeGreaterThan(outcome.before.logLoss);
    expect(outcome.before).toEqual(evaluate(set, LEARNER_PARAMS));
  });

  it('the same parameters again are no better: kept', () => {
    expect(decide(set, LEARNER_PARAMS, LEARNER_PARAMS).kind).toBe('kept');
  });

  it('an answer that is not 21 numbers in FSRS’s bounds keeps the parameters', () => {
    expect(decide(set, DEFAULT_PARAMS, [1, 2, 3]).kind).toBe('kept');
    expect(
      decide(
        set,
        DEFAULT_PARAMS,
        DEFAULT_PARAMS.map(() => Number.NaN),
      ).kind,
    ).toBe('kept');
  });
});

describe('the schedule with a deck’s parameters', () => {
  const log = simulatedLog(300, END);
  const seeds = {};

  it('is a pure function of seeds, log, parameters and retention', () => {
    const a = deriveItems(seeds, log, undefined, { params: LEARNER_PARAMS, retention: 0.85 });
    const b = deriveItems(seeds, [...log], undefined, { params: [...LEARNER_PARAMS], retention: 0.85 });
    expect(b).toEqual(a);
    expect(deriveItems(seeds, log)).not.toEqual(a);
    expect(deriveItems(seeds, log, undefined, { params: LEARNER_PARAMS, retention: 0.95 })).not.toEqual(a);
  });

  it('is what marking, storing and reading back give', () => {
    let reviews = withSettings(emptyReviews(), LEARNER_PARAMS, 0.8);
    for (const [key, at, grade] of log) reviews = recordMark(reviews, key, grade, at);
    expect(reviews.items).toEqual(deriveItems(seeds, log, undefined, { params: LEARNER_PARAMS, retention: 0.8 }));
    const stored = JSON.parse(JSON.stringify(toStored(reviews))) as unknown;
    const read = parseReviews(stored);
    expect(read?.params).toEqual(LEARNER_PARAMS);
    expect(read?.retention).toBe(0.8);
    expect(read?.items).toEqual(reviews.items);
    // Unreadable settings read as absent (the defaults), never as a broken schedule.
    const bad = parseReviews({ ...(stored as object), params: [1, 2], retention: 2, items: {} });
    expect(bad && ('params' in bad || 'retention' in bad)).toBe(false);
    expect(bad?.items).toEqual(deriveItems(seeds, log));
  });

  it('bounds retention as Anki does and takes parameters only as FSRS-6 has them', () => {
    expect([0.69, 0.7, 0.9, 0.97, 0.98, '0.8', NaN].map(parseRetention)).toEqual([null, 0.7, 0.9, 0.97, null, 0.8, null]);
    expect(parseParams(DEFAULT_PARAMS)).toEqual([...DEFAULT_PARAMS]);
    expect(parseParams(DEFAULT_PARAMS.slice(0, 19))).toBeNull();
    expect(parseParams(DEFAULT_PARAMS.map((part, i) => (i === 4 ? 11 : part)))).toBeNull();
  });
});

describe('the optimiser’s module', () => {
  it('is loaded with an unshared memory (no cross-origin isolation), and its size is what the progress counts', () => {
    const bytes = new Uint8Array(readFileSync(wasmPath));
    expect(statSync(wasmPath).size).toBe(WASM_BYTES);
    expect(unshare(bytes)).toBe(true);
    expect(unshare(bytes)).toBe(false);
    expect(() => new WebAssembly.Module(bytes)).not.toThrow();
    expect(() => unshare(new Uint8Array([1, 2, 3, 4]))).toThrow(/not a WebAssembly module/);
  });
});

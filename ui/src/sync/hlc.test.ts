import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MemoryStorage } from '../lib/memoryStorage';
import { after, createClock, makeStamp, MAX_AHEAD_MS, parseStamp, type ClockState } from './hlc';
import { CLOCK_KEY, createSyncStore } from './state';

const DAY = 24 * 60 * 60 * 1000;

function memoryStore(initial: ClockState | null = null) {
  let state = initial;
  return {
    clock: () => state,
    setClock: (next: ClockState) => {
      state = next;
    },
  };
}

describe('hybrid logical clock', () => {
  it('writes stamps that sort as their parts do, and reads them back', () => {
    fc.assert(
      fc.property(
        fc.tuple(fc.integer({ min: 0, max: 4e12 }), fc.integer({ min: 0, max: 1000 }), fc.constantFrom('a', 'b0', 'zz')),
        fc.tuple(fc.integer({ min: 0, max: 4e12 }), fc.integer({ min: 0, max: 1000 }), fc.constantFrom('a', 'b0', 'zz')),
        ([w1, c1, d1], [w2, c2, d2]) => {
          const s1 = makeStamp(w1, c1, d1);
          const s2 = makeStamp(w2, c2, d2);
          expect(parseStamp(s1)).toEqual({ wall: w1, counter: c1, device: d1 });
          const byParts = w1 !== w2 ? w1 - w2 : c1 !== c2 ? c1 - c2 : d1 < d2 ? -1 : d1 > d2 ? 1 : 0;
          expect(Math.sign(byParts)).toBe(s1 < s2 ? -1 : s1 > s2 ? 1 : 0);
        },
      ),
    );
  });

  it('never goes backwards, even when the wall clock does', () => {
    let wall = 10_000;
    const clock = createClock(memoryStore(), () => wall);
    const stamps = [clock.now()];
    for (const next of [9_000, 9_000, 12_000, 11_000, 12_000]) {
      wall = next;
      stamps.push(clock.now());
    }
    expect([...stamps].sort()).toEqual(stamps);
    expect(new Set(stamps).size).toBe(stamps.length);
  });

  it('after receiving a stamp from a clock a day ahead, its next stamp is later', () => {
    const ahead = createClock(memoryStore(), () => 5 * DAY + DAY);
    const behind = createClock(memoryStore(), () => 5 * DAY);
    const theirs = ahead.now();
    expect(behind.now() < theirs).toBe(true);
    behind.receive(theirs);
    const mine = behind.now();
    expect(mine > theirs).toBe(true);
    expect(parseStamp(mine)?.device).toBe(behind.device);
  });

  it('does not receive a stamp more than a year ahead of its wall clock', () => {
    const wall = 100 * DAY;
    const clock = createClock(memoryStore(), () => wall);
    clock.receive(makeStamp(wall + MAX_AHEAD_MS + 1, 0, 'bad'));
    expect(parseStamp(clock.now())?.wall).toBe(wall);
    clock.receive(makeStamp(wall + MAX_AHEAD_MS - 1, 0, 'far'));
    expect(parseStamp(clock.now())?.wall).toBe(wall + MAX_AHEAD_MS - 1);
    // An edit of a value stamped beyond the cap still gets a stamp after it.
    const absurd = makeStamp(wall + 10 * MAX_AHEAD_MS, 7, 'bad');
    expect(after(absurd, clock.device) > absurd).toBe(true);
  });

  it('keeps its state in sync storage across pages, the device id with it', () => {
    const storage = new MemoryStorage();
    const first = createClock(createSyncStore(storage), () => 1_000);
    const stamp = first.now();
    expect(JSON.parse(storage.getItem(CLOCK_KEY) ?? 'null')).toMatchObject({ wall: 1_000, counter: 0, device: first.device });
    const second = createClock(createSyncStore(storage), () => 500);
    expect(second.device).toBe(first.device);
    expect(second.now() > stamp).toBe(true);
    storage.setItem(CLOCK_KEY, '{"wall":"x"}');
    expect(createSyncStore(storage).clock()).toBeNull();
  });
});

// A hybrid logical clock (Kulkarni et al.): the stamps the merge orders edits by. A stamp is wall
// milliseconds, a counter and the device's id, written as text that sorts as the stamps order
// (fixed-width base 36, then the device id), so stamps compare with < and are unique per device.
// `now()` never goes backwards, even when the wall clock does; `receive(stamp)` moves the clock
// past a stamp seen from another device, so an edit made after seeing another device's change is
// always later than it, however far behind this device's wall clock is. A stamp more than
// MAX_AHEAD_MS (a year) ahead of this device's wall clock is not received: one device with an
// absurd clock cannot drag everyone's clock into the future (its own edits still order by their
// stamps; an edit made here after seeing one of them gets a stamp just after it through `after`).
// The clock's state is kept per browser by state.ts.

export type Stamp = string;

/** No stamp: earlier than every stamp. */
export const NO_STAMP: Stamp = '';

export const MAX_AHEAD_MS = 365 * 24 * 60 * 60 * 1000;

const WALL_WIDTH = 9; // 36^9 ms reaches the year 5000.
const COUNTER_WIDTH = 4;
const MAX_WALL = 36 ** WALL_WIDTH - 1;
const MAX_COUNTER = 36 ** COUNTER_WIDTH - 1;

export interface ClockState {
  wall: number;
  counter: number;
  device: string;
}

export function makeStamp(wall: number, counter: number, device: string): Stamp {
  const w = Math.min(MAX_WALL, Math.max(0, Math.floor(wall)));
  return `${w.toString(36).padStart(WALL_WIDTH, '0')}${Math.min(MAX_COUNTER, counter).toString(36).padStart(COUNTER_WIDTH, '0')}${device}`;
}

const STAMP = /^([0-9a-z]{9})([0-9a-z]{4})([0-9a-z]*)$/;

/** A stamp's parts; null for text that is no stamp. */
export function parseStamp(stamp: string): ClockState | null {
  const match = STAMP.exec(stamp);
  if (!match) return null;
  return { wall: parseInt(match[1] ?? '0', 36), counter: parseInt(match[2] ?? '0', 36), device: match[3] ?? '' };
}

export const isStamp = (value: unknown): value is Stamp => typeof value === 'string' && STAMP.test(value);

/** The wall milliseconds of a stamp (0 for none). */
export const wallOf = (stamp: Stamp) => parseStamp(stamp)?.wall ?? 0;

export const maxStamp = (a: Stamp, b: Stamp): Stamp => (a >= b ? a : b);

/** A device id: 8 random base-36 characters. */
export function newDeviceId(random: () => number = Math.random): string {
  let id = '';
  for (let i = 0; i < 8; i += 1) id += Math.floor(random() * 36).toString(36);
  return id;
}

/** The next state after `state` at wall time `wall`: later than `state`, never earlier than `wall`. */
export function tick(state: ClockState, wall: number): ClockState {
  if (wall > state.wall) return { ...state, wall, counter: 0 };
  if (state.counter >= MAX_COUNTER) return { ...state, wall: state.wall + 1, counter: 0 };
  return { ...state, counter: state.counter + 1 };
}

/** The state after seeing `stamp` at wall time `wall`; unchanged for a stamp too far ahead or no stamp. */
export function seen(state: ClockState, stamp: Stamp, wall: number): ClockState {
  const other = parseStamp(stamp);
  if (!other || other.wall > wall + MAX_AHEAD_MS) return state;
  if (other.wall > state.wall || (other.wall === state.wall && other.counter > state.counter)) {
    return { ...state, wall: other.wall, counter: other.counter };
  }
  return state;
}

/** A stamp of `device` just after `stamp` (for an edit of a value stamped beyond what the clock receives). */
export function after(stamp: Stamp, device: string): Stamp {
  const other = parseStamp(stamp) ?? { wall: 0, counter: 0, device: '' };
  const next = tick(other, other.wall);
  return makeStamp(next.wall, next.counter, device);
}

export interface Clock {
  /** A new stamp, later than every stamp this clock made or received. */
  now(): Stamp;
  /** Moves the clock past `stamp` (unless it is more than MAX_AHEAD_MS ahead of the wall clock). */
  receive(stamp: Stamp): void;
  readonly device: string;
}

export interface ClockStore {
  clock(): ClockState | null;
  /** May throw (a full quota): the clock then lives in memory for this page. */
  setClock(state: ClockState): void;
}

/** A clock kept in `store`, read once and written on every change. */
export function createClock(store: ClockStore, wallClock: () => number = Date.now, random: () => number = Math.random): Clock {
  let state: ClockState = store.clock() ?? { wall: 0, counter: 0, device: newDeviceId(random) };
  const keep = (next: ClockState) => {
    state = next;
    try {
      store.setClock(state);
    } catch {
      // Kept in memory: stamps stay ordered for this page.
    }
  };
  return {
    get device() {
      return state.device;
    },
    now() {
      keep(tick(state, wallClock()));
      return makeStamp(state.wall, state.counter, state.device);
    },
    receive(stamp) {
      const next = seen(state, stamp, wallClock());
      if (next !== state) keep(next);
    },
  };
}

// How much a vault or shared deck may hold before this app refuses to open it, and the check of a
// parsed body against it, so nothing stored on the server can make the page hang: the bytes it
// inflates to (crypto.ts stops there), then, on the parsed JSON and before anything walks it, its
// nesting, its values in all, its decks, its cards and its review marks. The walk is iterative and
// stops at the first bound passed. Real collections are far below every number (a learner with
// 300 decks of 1,000 cards and 100,000 reviews uses a fraction).
import { isRecord } from '../lib/json';
import { MAX_UNPACKED_BYTES } from './crypto';

export interface OpenLimits {
  /** Bytes a body may inflate to (crypto.ts's MAX_UNPACKED_BYTES by default). */
  unpackedBytes: number;
  /** JSON values (objects, lists, texts, numbers…) in all. */
  values: number;
  /** Levels of nesting. */
  depth: number;
  /** Decks: entries of a `decks` object or list. */
  decks: number;
  /** Cards: entries of every `cards` object or list together. */
  cards: number;
  /** Review marks: entries of every `log` list together. */
  marks: number;
}

export const OPEN_LIMITS: OpenLimits = {
  unpackedBytes: MAX_UNPACKED_BYTES,
  values: 8_000_000,
  depth: 64,
  decks: 20_000,
  cards: 1_000_000,
  marks: 2_000_000,
};

const sizeOf = (value: unknown) => (Array.isArray(value) ? value.length : isRecord(value) ? Object.keys(value).length : 0);

const amount = (n: number) => n.toLocaleString('en');

/**
 * Throws, naming `what` ("vault", "shared deck") and the bound, when `value` holds more than
 * `limits` allow; returns quietly otherwise.
 */
export function checkLimits(value: unknown, what: string, limits: OpenLimits = OPEN_LIMITS): void {
  const tooMuch = (of: string, bound: number) => new Error(`This ${what} holds more than this app opens (over ${amount(bound)} ${of}).`);
  const counted = { decks: 0, cards: 0, marks: 0 };
  let values = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    values += 1;
    if (values > limits.values) throw tooMuch('values', limits.values);
    if (depth > limits.depth) throw tooMuch('levels of nesting', limits.depth);
    const size = sizeOf(item);
    if (values + stack.length + size > limits.values) throw tooMuch('values', limits.values);
    if (Array.isArray(item)) {
      for (const child of item) stack.push([child, depth + 1]);
    } else if (isRecord(item)) {
      for (const [key, child] of Object.entries(item)) {
        if (key === 'decks') counted.decks += sizeOf(child);
        else if (key === 'cards') counted.cards += sizeOf(child);
        else if (key === 'log') counted.marks += sizeOf(child);
        stack.push([child, depth + 1]);
      }
      if (counted.decks > limits.decks) throw tooMuch('decks', limits.decks);
      if (counted.cards > limits.cards) throw tooMuch('cards', limits.cards);
      if (counted.marks > limits.marks) throw tooMuch('review marks', limits.marks);
    }
  }
}

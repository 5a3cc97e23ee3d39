// What a number box (NumberField) holds, read strictly: a whole number in its range or, when the
// box may stay empty, nothing. Anything else is refused: never read as NaN, rounded or clamped.

export interface WholeNumberRange {
  min: number;
  max?: number;
  /** Accepted values are min, min + step, min + 2 × step…; 1 unless given. */
  step?: number;
  /** An empty box is refused instead of meaning "no value". */
  required?: boolean;
}

/** An accepted entry (`value` undefined: an empty box that may be empty), or a refused one. */
export type WholeNumberEntry = { ok: true; value: number | undefined } | { ok: false };

const REFUSED: WholeNumberEntry = { ok: false };

// What an <input type="number"> can report: HTML's "valid floating-point number" (1, -2, 1.0, .5, 1e3).
const NUMBER_TEXT = /^-?(\d+(\.\d+)?|\.\d+)([eE][-+]?\d+)?$/;

export function parseWholeNumber(text: string, range: WholeNumberRange): WholeNumberEntry {
  const trimmed = text.trim();
  if (trimmed === '') return range.required ? REFUSED : { ok: true, value: undefined };
  if (!NUMBER_TEXT.test(trimmed)) return REFUSED;
  // + 0 turns -0 into 0.
  const value = Number(trimmed) + 0;
  const step = range.step ?? 1;
  if (!Number.isSafeInteger(value) || value < range.min || (range.max !== undefined && value > range.max)) return REFUSED;
  if ((value - range.min) % step !== 0) return REFUSED;
  return { ok: true, value };
}

/**
 * The entry of an <input type="number">: its value, unless the browser flags bad input (text it
 * cannot read as a number, such as "-" or "1e"), which it reports as an empty value.
 */
export function readNumberInput(input: { value: string; badInput: boolean }, range: WholeNumberRange): WholeNumberEntry {
  return input.badInput ? REFUSED : parseWholeNumber(input.value, range);
}

/** What a refused entry is told, unless the screen has its own words. */
export function rangeMessage(range: WholeNumberRange): string {
  const span = range.max === undefined ? `A whole number, ${range.min} or more` : `A whole number from ${range.min} to ${range.max}`;
  const step = range.step ?? 1;
  return step === 1 ? `${span}.` : `${span}, in steps of ${step}.`;
}

/** The text a box shows for a value (an empty box for none, or for NaN from data stored before). */
export function formatWholeNumber(value: number | undefined): string {
  return value === undefined || !Number.isFinite(value) ? '' : String(value);
}

/** Whether `text` already stands for `value`, so an update from outside can leave it as typed ("007", "1e3"). */
export function standsFor(text: string, value: number | undefined, range: WholeNumberRange): boolean {
  const entry = parseWholeNumber(text, range);
  return entry.ok && entry.value === value;
}

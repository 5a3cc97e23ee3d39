// The one test for "a JSON object", in a module of its own so the landing page can use it without
// pulling the validation library into the first download.

/** A JSON object: not null and not a list. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// The one test for "a JSON object", and the one reader of the JSON data blocks the server writes
// into index.html, in a module of its own so the landing page can use them without pulling the
// validation library into the first download.

/** A JSON object: not null and not a list. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A data block's text parsed; undefined when there is no text or it is not JSON. */
export function parseJsonText(text: string | null | undefined): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

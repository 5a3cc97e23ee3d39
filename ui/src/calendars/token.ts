// Template tokens as the regex dialog builds them and as the token cloud inserts them: the
// browser's twin of the engine's build_token / parse_token (src/calendar/template/token.rs).
// Only building and reading one token happens here; templates are evaluated by the server.

/** The flags a regex token may carry, in their canonical order. */
export const FLAGS = 'gimsU';
export const FLAG_LIST = ['g', 'i', 'm', 's', 'U'] as const;

export interface TokenParts {
  field: string;
  /** Empty: no transform. */
  pattern: string;
  replacement: string;
  /** A subset of `gimsU`, in that order. */
  flags: string;
}

/** Keeps the known flags, once each, in the order `gimsU`. */
export function canonicalFlags(flags: string): string {
  return FLAG_LIST.filter((flag) => flags.includes(flag)).join('');
}

function escapePart(text: string): string {
  return text.replace(/[\\/}]/g, (c) => `\\${c}`);
}

/** Undoes the token escapes `\/`, `\\`, `\}`; any other backslash pair stays as written. */
function unescapePart(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charAt(i);
    if (c !== '\\') {
      out += c;
      continue;
    }
    const next = text.charAt(i + 1);
    if (next === '/' || next === '\\' || next === '}') {
      out += next;
      i += 1;
    } else {
      // A lone backslash (or one before another character) is kept; the next character is
      // copied by the following iteration.
      out += '\\';
    }
  }
  return out;
}

const isNameChar = (c: string) => /^[A-Za-z0-9_-]$/.test(c);

/** Index of the first `delim` at or after `from` (and before `end`) not escaped by a backslash. */
function findUnescaped(text: string, from: number, end: number, delim: string): number {
  let i = from;
  while (i < end) {
    const c = text.charAt(i);
    if (c === '\\') i += 2;
    else if (c === delim) return i;
    else i += 1;
  }
  return -1;
}

/**
 * `${FIELD}` for an empty pattern, else `${FIELD|re:s/PATTERN/REPLACEMENT/FLAGS}` with `\`, `/`
 * and `}` escaped. Unknown flags are dropped and the rest put in the order `gimsU`.
 */
export function buildToken(field: string, pattern: string, replacement: string, flags: string): string {
  if (pattern === '') return `\${${field}}`;
  return `\${${field}|re:s/${escapePart(pattern)}/${escapePart(replacement)}/${canonicalFlags(flags)}}`;
}

/**
 * Reads a string that is exactly one token back into its parts; null for anything else
 * (including a token with a syntax error).
 */
export function parseToken(token: string): TokenParts | null {
  if (!token.startsWith('${')) return null;
  let j = 2;
  while (j < token.length && isNameChar(token.charAt(j))) j += 1;
  if (j === 2) return null;
  const field = token.slice(2, j);
  const next = token.charAt(j);
  if (next === '}') {
    return j + 1 === token.length ? { field, pattern: '', replacement: '', flags: '' } : null;
  }
  if (next !== '|') return null;
  const close = findUnescaped(token, j + 1, token.length, '}');
  if (close < 0 || close + 1 !== token.length) return null;
  if (!token.startsWith('re:s/', j + 1)) return null;
  const patternAt = j + 6;
  const patternEnd = findUnescaped(token, patternAt, close, '/');
  if (patternEnd < 0) return null;
  const replacementEnd = findUnescaped(token, patternEnd + 1, close, '/');
  if (replacementEnd < 0) return null;
  const flags = token.slice(replacementEnd + 1, close);
  if (!/^[gimsU]*$/.test(flags)) return null;
  return {
    field,
    pattern: unescapePart(token.slice(patternAt, patternEnd)),
    replacement: unescapePart(token.slice(patternEnd + 1, replacementEnd)),
    flags: canonicalFlags(flags),
  };
}

/** Puts `insert` in place of the selection `start..end` of `value`; the caret lands after it. */
export function insertAt(value: string, start: number, end: number, insert: string): { value: string; caret: number } {
  const from = Math.max(0, Math.min(start, value.length));
  const to = Math.max(from, Math.min(end, value.length));
  return { value: value.slice(0, from) + insert + value.slice(to), caret: from + insert.length };
}

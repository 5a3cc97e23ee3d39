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

/** How the regex dialog puts its token into the target template. */
export type PlaceMode = 'replace' | 'append';

/** The plain token of a field, `${FIELD}`. */
export const plainToken = (field: string) => `\${${field}}`;

/**
 * Inserts a token at `start..end` with a space on each side where it would otherwise touch a
 * word or another token, so `${A}${B}` never renders as one run of text.
 */
export function insertSpaced(value: string, start: number, end: number, insert: string): { value: string; caret: number } {
  const from = Math.max(0, Math.min(start, value.length));
  const to = Math.max(from, Math.min(end, value.length));
  const before = value.slice(0, from);
  const after = value.slice(to);
  const lead = before !== '' && !/\s$/.test(before) ? ' ' : '';
  const trail = after !== '' && !/^\s/.test(after) ? ' ' : '';
  const text = lead + insert + trail;
  return { value: before + text + after, caret: from + lead.length + insert.length };
}

/**
 * The regex dialog's result in the target template. `replace` swaps the source field's plain token
 * (`${SUMMARY}`) for the new one when the template has it, else the whole template; `append`
 * inserts at the selection, spaced.
 */
export function placeToken(
  template: string,
  token: string,
  mode: PlaceMode,
  field: string,
  selection: { start: number; end: number },
): { value: string; caret: number } {
  if (mode === 'replace') {
    const plain = plainToken(field);
    const at = template.indexOf(plain);
    if (at < 0) return { value: token, caret: token.length };
    return { value: template.slice(0, at) + token + template.slice(at + plain.length), caret: at + token.length };
  }
  return insertSpaced(template, selection.start, selection.end, token);
}

/** What `replace` would do, in words for the dialog's choice. */
export function replaceLabel(template: string, field: string, target: string): string {
  return template.includes(plainToken(field)) ? `Replace ${plainToken(field)} in ${target}` : `Replace the whole ${target} template`;
}

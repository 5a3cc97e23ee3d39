// Typing practice: the typed answer against the card's, accent- and case-insensitively unless
// strict, and a character-by-character difference to show. Pure.

export interface CompareOptions {
  /** Accents and case count too (white space at the ends and runs of it still do not). */
  strict: boolean;
}

/** White space trimmed and collapsed: never a reason to call an answer wrong. */
const tidy = (text: string) => text.normalize('NFC').trim().replace(/\s+/g, ' ');

// Made on first use, not when the module loads: the flashcard screens load this module, and only
// typed practice compares answers, while the first Segmenter costs tens of milliseconds on a
// phone (ICU's break rules) in the task that evaluates the flashcards' code.
let graphemes: Intl.Segmenter | undefined;
const segmenter = () => (graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' }));

/** The user-perceived characters of a text (an accented letter is one, however it is encoded). */
const characters = (text: string) => Array.from(segmenter().segment(text), (part) => part.segment);

/** One character as the comparison sees it. */
function foldChar(char: string, strict: boolean): string {
  if (strict) return char;
  return char.normalize('NFD').replace(/\p{M}/gu, '').toLocaleLowerCase();
}

/** True when the typed answer counts as the expected one. */
export function isCorrect(typed: string, expected: string, options: CompareOptions): boolean {
  const a = characters(tidy(typed))
    .map((c) => foldChar(c, options.strict))
    .join('');
  const b = characters(tidy(expected))
    .map((c) => foldChar(c, options.strict))
    .join('');
  return a === b;
}

/**
 * 'same': typed as expected; 'close': the same letter with another accent or case (accepted when
 * not strict); 'missing': in the answer but not typed; 'extra': typed but not in the answer.
 */
export type DiffKind = 'same' | 'close' | 'missing' | 'extra';

export interface DiffPart {
  kind: DiffKind;
  text: string;
}

/** Longer answers than this are compared as a whole rather than aligned character by character. */
const MAX_ALIGN = 400;

/**
 * The difference between the typed and the expected answer, character by character: a longest
 * common subsequence alignment, the expected text's characters shown for 'same' and 'close' parts.
 */
export function diffAnswer(typed: string, expected: string, options: CompareOptions): DiffPart[] {
  const a = characters(tidy(typed));
  const b = characters(tidy(expected));
  if (a.length > MAX_ALIGN || b.length > MAX_ALIGN) {
    return isCorrect(typed, expected, options)
      ? [{ kind: 'same', text: b.join('') }]
      : merge([...a.map((text) => ({ kind: 'extra' as const, text })), ...b.map((text) => ({ kind: 'missing' as const, text }))]);
  }
  const fa = a.map((c) => foldChar(c, options.strict));
  const fb = b.map((c) => foldChar(c, options.strict));
  // lengths[i][j]: the longest common subsequence of fa[i..] and fb[j..].
  const width = fb.length + 1;
  const lengths = new Uint16Array((fa.length + 1) * width);
  for (let i = fa.length - 1; i >= 0; i -= 1) {
    for (let j = fb.length - 1; j >= 0; j -= 1) {
      lengths[i * width + j] =
        fa[i] === fb[j] ? (lengths[(i + 1) * width + j + 1] ?? 0) + 1 : Math.max(lengths[(i + 1) * width + j] ?? 0, lengths[i * width + j + 1] ?? 0);
    }
  }
  const parts: DiffPart[] = [];
  let i = 0;
  let j = 0;
  while (i < fa.length || j < fb.length) {
    if (i < fa.length && j < fb.length && fa[i] === fb[j]) {
      parts.push({ kind: a[i] === b[j] ? 'same' : 'close', text: b[j] ?? '' });
      i += 1;
      j += 1;
    } else if (j < fb.length && (i >= fa.length || (lengths[i * width + j + 1] ?? 0) >= (lengths[(i + 1) * width + j] ?? 0))) {
      parts.push({ kind: 'missing', text: b[j] ?? '' });
      j += 1;
    } else {
      parts.push({ kind: 'extra', text: a[i] ?? '' });
      i += 1;
    }
  }
  return merge(parts);
}

/** Neighbouring parts of one kind joined into one. */
function merge(parts: readonly DiffPart[]): DiffPart[] {
  const merged: DiffPart[] = [];
  for (const part of parts) {
    const last = merged[merged.length - 1];
    if (last?.kind === part.kind) last.text += part.text;
    else merged.push({ ...part });
  }
  return merged;
}

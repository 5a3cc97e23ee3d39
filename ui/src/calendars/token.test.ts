import { describe, expect, it } from 'vitest';
import { buildToken, canonicalFlags, insertAt, insertSpaced, parseToken, placeToken, replaceLabel } from './token';

// The same cases as the engine's tests in crates/engine/src/template/tests.rs and
// crates/engine/tests/engine_props.rs.
describe('buildToken and parseToken', () => {
  it('escapes / \\ and } and parseToken inverts it', () => {
    const token = buildToken('DESCRIPTION', String.raw`a/b\d}`, String.raw`x/\n}`, 'gqi');
    expect(token).toBe(String.raw`${'$'}{DESCRIPTION|re:s/a\/b\\d\}/x\/\\n\}/gi}`);
    expect(parseToken(token)).toEqual({
      field: 'DESCRIPTION',
      pattern: String.raw`a/b\d}`,
      replacement: String.raw`x/\n}`,
      flags: 'gi',
    });
  });

  it('builds a plain token when the pattern is empty', () => {
    expect(buildToken('LOCATION', '', 'x', 'g')).toBe('${LOCATION}');
    expect(parseToken('${LOCATION}')?.field).toBe('LOCATION');
  });

  it('rejects anything that is not exactly one token', () => {
    expect(parseToken('${A} tail')).toBeNull();
    expect(parseToken('text')).toBeNull();
    expect(parseToken('${}')).toBeNull();
    expect(parseToken('${A|re:s/x/}')).toBeNull();
    expect(parseToken('${A|re:s/x/y/q}')).toBeNull();
    expect(parseToken('${A|other}')).toBeNull();
    expect(parseToken('${A|re:s/x/y/g')).toBeNull();
  });

  it('builds the token the user meant for groups and escapes in the replacement', () => {
    expect(buildToken('A', String.raw`(\d+)-(\d+)`, String.raw`$2/$1\n`, 'g')).toBe(String.raw`${'$'}{A|re:s/(\\d+)-(\\d+)/$2\/$1\\n/g}`);
  });

  it('puts flags in the order gimsU and drops unknown ones', () => {
    expect(canonicalFlags('Usmig')).toBe('gimsU');
    expect(canonicalFlags('xqg')).toBe('g');
    expect(buildToken('A', 'a', 'b', 'Ui')).toBe('${A|re:s/a/b/iU}');
  });

  it('reads back whatever it builds (random cases, as the engine property test)', () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const pick = (chars: string, min: number, max: number) => {
      const length = min + Math.floor(random() * (max - min + 1));
      const list = Array.from(chars);
      return Array.from({ length }, () => list[Math.floor(random() * list.length)] ?? '').join('');
    };
    const any = 'ab/\\}{$|:.*+?()[]^ 1é😀\n\t';
    for (let n = 0; n < 500; n += 1) {
      const field = pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ', 1, 1) + pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-', 0, 10);
      const pattern = pick(any, 1, 20);
      const replacement = pick(any, 0, 20);
      const flags = pick('gimsU', 0, 5);
      const parts = parseToken(buildToken(field, pattern, replacement, flags));
      expect(parts).toEqual({ field, pattern, replacement, flags: canonicalFlags(flags) });
    }
  });
});

describe('insertAt', () => {
  it('inserts at the caret and replaces a selection', () => {
    expect(insertAt('ab', 1, 1, 'X')).toEqual({ value: 'aXb', caret: 2 });
    expect(insertAt('abcd', 1, 3, 'X')).toEqual({ value: 'aXd', caret: 2 });
  });

  it('appends when the position is past the end and clamps odd selections', () => {
    expect(insertAt('ab', 99, 99, '${A}')).toEqual({ value: 'ab${A}', caret: 6 });
    expect(insertAt('ab', 2, 0, 'X')).toEqual({ value: 'abX', caret: 3 });
  });
});

describe('placing a token', () => {
  it('spaces a token from the words and tokens around it', () => {
    expect(insertSpaced('${SUMMARY}', 10, 10, '${LOCATION}')).toEqual({ value: '${SUMMARY} ${LOCATION}', caret: 22 });
    expect(insertSpaced('ab', 1, 1, 'X')).toEqual({ value: 'a X b', caret: 3 });
    expect(insertSpaced('', 0, 0, 'X')).toEqual({ value: 'X', caret: 1 });
    expect(insertSpaced('a ', 2, 2, 'X')).toEqual({ value: 'a X', caret: 3 });
  });
  it('replace swaps the plain token of the source field, so the value does not show twice', () => {
    const token = '${SUMMARY|re:s/x/y/}';
    expect(placeToken('[${SUMMARY}] ${LOCATION}', token, 'replace', 'SUMMARY', { start: 0, end: 0 }).value).toBe(`[${token}] \${LOCATION}`);
  });
  it('replace without the plain token replaces the whole template', () => {
    expect(placeToken('fixed text', 'T', 'replace', 'SUMMARY', { start: 0, end: 0 })).toEqual({ value: 'T', caret: 1 });
  });
  it('append inserts at the selection, spaced', () => {
    expect(placeToken('${SUMMARY}', 'T', 'append', 'SUMMARY', { start: 10, end: 10 }).value).toBe('${SUMMARY} T');
  });
  it('names what replace will do', () => {
    expect(replaceLabel('${SUMMARY}', 'SUMMARY', 'SUMMARY')).toBe('Replace ${SUMMARY} in SUMMARY');
    expect(replaceLabel('x', 'SUMMARY', 'DESCRIPTION')).toBe('Replace the whole DESCRIPTION template');
  });
});

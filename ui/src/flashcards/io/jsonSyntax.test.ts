import { describe, expect, it } from 'vitest';
import { findJsonError } from './jsonSyntax';

describe('findJsonError', () => {
  it('accepts valid JSON', () => {
    for (const text of ['{}', '[]', ' {"a": [1, -2.5e3, true, false, null, "x\\n\\u00e9"]} ', '"s"', '0']) {
      expect(findJsonError(text)).toBeNull();
      expect(() => JSON.parse(text) as unknown).not.toThrow();
    }
  });

  it('finds where invalid JSON goes wrong', () => {
    expect(findJsonError('{"a": oops}')).toEqual({ offset: 6, message: 'unexpected "o"' });
    expect(findJsonError('{"a": 1,}')).toEqual({ offset: 8, message: 'expected a quoted key, found "}"' });
    expect(findJsonError('[1 2]')).toEqual({ offset: 3, message: 'expected "," or "]", found "2"' });
    expect(findJsonError('{"a" 1}')).toEqual({ offset: 5, message: 'expected ":", found "1"' });
    expect(findJsonError('{"a": "b')).toEqual({ offset: 8, message: 'a string is not closed' });
    expect(findJsonError('[')).toEqual({ offset: 1, message: 'the text ends too early' });
    expect(findJsonError('{} x')).toEqual({ offset: 3, message: 'unexpected "x" after the end of the data' });
    expect(findJsonError('"a\\q"')?.message).toBe('a bad escape in a string');
    expect(findJsonError('"a\nb"')?.message).toBe('a line break or control character inside a string');
  });
});

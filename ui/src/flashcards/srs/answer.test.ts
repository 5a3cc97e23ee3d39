// Typing practice: the comparison (loose and strict) and the character-by-character difference.
import { describe, expect, it } from 'vitest';
import { diffAnswer, isCorrect } from './answer';

const loose = { strict: false };
const strict = { strict: true };

describe('answer comparison', () => {
  it('ignores accents, case and extra white space unless strict', () => {
    expect(isCorrect('  Ecole ', 'école', loose)).toBe(true);
    expect(isCorrect('LE  CHAT', 'le chat', loose)).toBe(true);
    expect(isCorrect('Ecole', 'école', strict)).toBe(false);
    expect(isCorrect(' école', 'école', strict)).toBe(true);
    expect(isCorrect('chien', 'chat', loose)).toBe(false);
    expect(isCorrect('', 'chat', loose)).toBe(false);
  });

  it('treats composed and decomposed accents as the same letter', () => {
    expect(isCorrect('e\u0301cole', '\u00e9cole', strict)).toBe(true);
    expect(isCorrect('Tschüss', 'tschuss', loose)).toBe(true);
    expect(isCorrect('őrség', 'orseg', loose)).toBe(true);
  });

  it('shows the difference character by character', () => {
    expect(diffAnswer('chat', 'chat', loose)).toEqual([{ kind: 'same', text: 'chat' }]);
    expect(diffAnswer('cht', 'chat', loose)).toEqual([
      { kind: 'same', text: 'ch' },
      { kind: 'missing', text: 'a' },
      { kind: 'same', text: 't' },
    ]);
    expect(diffAnswer('chats', 'chat', loose)).toEqual([
      { kind: 'same', text: 'chat' },
      { kind: 'extra', text: 's' },
    ]);
    expect(diffAnswer('chot', 'chat', loose)).toEqual([
      { kind: 'same', text: 'ch' },
      { kind: 'missing', text: 'a' },
      { kind: 'extra', text: 'o' },
      { kind: 'same', text: 't' },
    ]);
  });

  it('marks letters with another accent or case as close when not strict, and as wrong when strict', () => {
    expect(diffAnswer('Ecole', 'école', loose)).toEqual([
      { kind: 'close', text: 'é' },
      { kind: 'same', text: 'cole' },
    ]);
    expect(diffAnswer('ecole', 'école', strict)).toEqual([
      { kind: 'missing', text: 'é' },
      { kind: 'extra', text: 'e' },
      { kind: 'same', text: 'cole' },
    ]);
  });

  it('shows what was typed and what was expected when nothing matches', () => {
    expect(diffAnswer('', 'un', loose)).toEqual([{ kind: 'missing', text: 'un' }]);
    expect(
      diffAnswer('xyz', 'un', loose)
        .map((part) => part.kind)
        .sort(),
    ).toEqual(['extra', 'missing']);
  });

  it('does not align very long answers character by character', () => {
    const long = 'a'.repeat(1000);
    expect(diffAnswer(long, long, loose)).toEqual([{ kind: 'same', text: long }]);
    expect(diffAnswer('b', long, loose)).toEqual([
      { kind: 'extra', text: 'b' },
      { kind: 'missing', text: long },
    ]);
  });
});

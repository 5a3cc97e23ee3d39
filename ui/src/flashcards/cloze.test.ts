import { describe, expect, it } from 'vitest';
import { blank, clozeAnswer, clozeKey, clozeNumbers, clozeText, isClozeFront, parseCloze, showCloze } from './cloze';

describe('parseCloze', () => {
  it('reads a deletion, with and without a hint', () => {
    expect(parseCloze('The {{c1::cat}} sat on the {{c2::mat::floor covering}}.')).toEqual([
      { kind: 'text', text: 'The ' },
      { kind: 'cloze', number: 1, answer: 'cat', hint: '' },
      { kind: 'text', text: ' sat on the ' },
      { kind: 'cloze', number: 2, answer: 'mat', hint: 'floor covering' },
      { kind: 'text', text: '.' },
    ]);
  });

  it('gives plain text for a front without deletions', () => {
    expect(parseCloze('just a word')).toEqual([{ kind: 'text', text: 'just a word' }]);
    expect(parseCloze('')).toEqual([]);
  });

  it('reads multi-digit and zero-padded numbers', () => {
    expect(parseCloze('{{c12::a}}{{c03::b}}')).toEqual([
      { kind: 'cloze', number: 12, answer: 'a', hint: '' },
      { kind: 'cloze', number: 3, answer: 'b', hint: '' },
    ]);
  });

  it('keeps line breaks and colons inside the answer', () => {
    expect(parseCloze('{{c1::a\nb: c}}')).toEqual([{ kind: 'cloze', number: 1, answer: 'a\nb: c', hint: '' }]);
  });

  it.each([
    ['an unclosed deletion', 'The {{c1::cat sat'],
    ['a missing number', 'The {{c::cat}} sat'],
    ['number zero', 'The {{c0::cat}} sat'],
    ['an empty answer', 'The {{c1::}} sat'],
    ['a single colon', 'The {{c1:cat}} sat'],
    ['single braces', 'The {c1::cat} sat'],
    ['an upper-case C', 'The {{C1::cat}} sat'],
  ])('shows %s literally', (_name, front) => {
    expect(parseCloze(front)).toEqual([{ kind: 'text', text: front }]);
    expect(clozeNumbers(front)).toEqual([]);
    expect(isClozeFront(front)).toBe(false);
  });

  it('shows a nested deletion literally, as typed, and still reads the ones after it', () => {
    const front = 'A {{c1::big {{c2::red}} dog}} and {{c3::cat}}';
    expect(parseCloze(front)).toEqual([
      { kind: 'text', text: 'A {{c1::big {{c2::red}} dog}} and ' },
      { kind: 'cloze', number: 3, answer: 'cat', hint: '' },
    ]);
    expect(clozeNumbers(front)).toEqual([3]);
  });

  it('reads a later deletion after an unclosed one', () => {
    expect(parseCloze('{{c1::oops and {{c2::fine}}')).toEqual([
      { kind: 'text', text: '{{c1::oops and ' },
      { kind: 'cloze', number: 2, answer: 'fine', hint: '' },
    ]);
  });

  it('loses no text: the parts put together give the front back', () => {
    for (const front of ['x {{c1::a::h}} y', 'A {{c1::b {{c2::c}} d}} e', '{{c1::', '}} {{c1::a}} {{', '{{c0::z}}{{c2::}}']) {
      const joined = parseCloze(front)
        .map((part) => (part.kind === 'text' ? part.text : `{{c${part.number}::${part.answer}${part.hint === '' ? '' : `::${part.hint}`}}}`))
        .join('');
      expect(joined).toBe(front);
    }
  });
});

describe('clozeNumbers', () => {
  it('lists each number once, ascending', () => {
    expect(clozeNumbers('{{c2::b}} {{c1::a}} {{c2::c}}')).toEqual([1, 2]);
  });
});

describe('showCloze and clozeText', () => {
  const front = 'The {{c1::cat}} sat on the {{c2::mat::floor}}.';

  it('blanks the asked number and shows the others plain', () => {
    expect(clozeText(front, 1, false)).toBe('The [...] sat on the mat.');
    expect(clozeText(front, 2, false)).toBe('The cat sat on the [floor].');
  });

  it('reveals the asked number on the back', () => {
    expect(clozeText(front, 2, true)).toBe('The cat sat on the mat.');
    expect(showCloze(front, 2, true)).toContainEqual({ text: 'mat', role: 'revealed' });
    expect(showCloze(front, 2, false)).toContainEqual({ text: '[floor]', role: 'hidden' });
  });

  it('blanks every deletion that shares the number', () => {
    const shared = '{{c1::Paris}} is the capital of {{c1::France}}; {{c2::Rome}} of Italy';
    expect(clozeText(shared, 1, false)).toBe('[...] is the capital of [...]; Rome of Italy');
    expect(showCloze(shared, 1, true).filter((part) => part.role === 'revealed')).toHaveLength(2);
    expect(clozeAnswer(shared, 1)).toBe('Paris, France');
    expect(clozeAnswer(shared, 2)).toBe('Rome');
  });

  it('keeps malformed markup literally on both faces', () => {
    const odd = '{{c1::a}} and {{c2::}}';
    expect(clozeText(odd, 1, false)).toBe('[...] and {{c2::}}');
    expect(clozeText(odd, 1, true)).toBe('a and {{c2::}}');
  });
});

describe('helpers', () => {
  it('writes the blank with a hint or dots', () => {
    expect(blank('')).toBe('[...]');
    expect(blank('noun')).toBe('[noun]');
  });

  it('compares typed answers with the trimmed hidden text', () => {
    expect(clozeAnswer('x {{c1:: spaced ::hint}}', 1)).toBe('spaced');
    expect(clozeAnswer('x {{c1::a}}', 2)).toBe('');
  });

  it('keys a cloze item by card id and number, c1 by the card id alone', () => {
    expect(clozeKey('card-1', 3)).toBe('card-1:c3');
    expect(clozeKey('card-1', 1)).toBe('card-1');
  });
});

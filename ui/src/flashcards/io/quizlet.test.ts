import { describe, expect, it } from 'vitest';
import { readQuizlet } from './quizlet';

const pairs = (text: string, options?: Parameters<typeof readQuizlet>[1]) => readQuizlet(text, options).cards.map((card) => [card.front, card.back]);

describe('readQuizlet', () => {
  it('reads the default export: tab between term and definition, a card per line', () => {
    expect(pairs('cat\tchat\ndog\tle chien, fidèle\n')).toEqual([
      ['cat', 'chat'],
      ['dog', 'le chien, fidèle'],
    ]);
  });

  it('splits each card at the first term separator only', () => {
    expect(pairs('to be, or not\têtre\tou ne pas être')).toEqual([['to be, or not', 'être\tou ne pas être']]);
    expect(pairs('cat,chat, le chat\ndog,chien', { term: { kind: 'comma' }, card: { kind: 'newline' } })).toEqual([
      ['cat', 'chat, le chat'],
      ['dog', 'chien'],
    ]);
  });

  it('splits cards at semicolons, then terms, so a definition may span lines', () => {
    expect(pairs('cat\tchat;dog\tchien\nle chien;', { term: { kind: 'tab' }, card: { kind: 'semicolon' } })).toEqual([
      ['cat', 'chat'],
      ['dog', 'chien\nle chien'],
    ]);
  });

  it('honours custom separators', () => {
    const options = { term: { kind: 'custom', value: ' - ' }, card: { kind: 'custom', value: '\\n\\n' } } as const;
    expect(pairs('cat - chat - le chat\n\ndog - chien', options)).toEqual([
      ['cat', 'chat - le chat'],
      ['dog', 'chien'],
    ]);
    expect(pairs('a=>b||c=>d', { term: { kind: 'custom', value: '=>' }, card: { kind: 'custom', value: '||' } })).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
  });

  it('skips blank cards and reports cards without a separator by line', () => {
    const result = readQuizlet('cat\tchat\n\nno separator here\n\tonly definition\ndog\tchien');
    expect(result.cards.map((card) => [card.line, card.front])).toEqual([
      [1, 'cat'],
      [5, 'dog'],
    ]);
    expect(result.problems).toEqual([
      { line: 3, message: 'no tab between term and definition; the card is skipped' },
      { line: 4, message: 'the term is empty; the card is skipped' },
    ]);
  });

  it('counts lines of cards split at semicolons', () => {
    const result = readQuizlet('a\tb;\nc d;\ne\tf', { term: { kind: 'tab' }, card: { kind: 'semicolon' } });
    expect(result.problems).toEqual([{ line: 2, message: 'no tab between term and definition; the card is skipped' }]);
    expect(result.cards.map((card) => card.line)).toEqual([1, 3]);
  });

  it('strips a BOM and accepts CRLF', () => {
    expect(pairs('\ufeffcat\tchat\r\ndog\tchien\r\n')).toEqual([
      ['cat', 'chat'],
      ['dog', 'chien'],
    ]);
  });

  it('refuses empty or identical separators', () => {
    expect(() => readQuizlet('a', { term: { kind: 'custom', value: '' }, card: { kind: 'newline' } })).toThrow('empty');
    expect(() => readQuizlet('a', { term: { kind: 'comma' }, card: { kind: 'custom', value: ',' } })).toThrow('the same');
  });
});

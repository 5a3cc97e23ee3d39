import { describe, expect, it } from 'vitest';
import { describeProblem, fieldForName, headerColumns, rowsToCards } from './columns';

describe('columns', () => {
  it('maps names to card fields, case-insensitively', () => {
    expect(fieldForName(' Front ')).toBe('front');
    expect(fieldForName('TERM')).toBe('front');
    expect(fieldForName('Definition')).toBe('back');
    expect(fieldForName('Tags')).toBe('tags');
    expect(fieldForName('Notes')).toBeNull();
  });

  it('recognises a header row only when every name is known and front and back are there', () => {
    expect(headerColumns(['Back', 'Front', 'Gender'])).toEqual(['back', 'front', 'gender']);
    expect(headerColumns(['cat', 'chat'])).toBeNull();
    expect(headerColumns(['Front', 'Example'])).toBeNull();
  });

  it('reads rows in the default order and tolerates ragged rows', () => {
    const result = rowsToCards([
      { line: 1, fields: ['cat', 'chat', '/ʃa/', 'm', 'Le chat.', 'extra'] },
      { line: 2, fields: [' dog ', ' chien '] },
    ]);
    expect(result.problems).toEqual([]);
    expect(result.cards).toEqual([
      { line: 1, front: 'cat', back: 'chat', pronunciation: '/ʃa/', gender: 'm', example: 'Le chat.', tags: [] },
      { line: 2, front: 'dog', back: 'chien', pronunciation: '', gender: '', example: '', tags: [] },
    ]);
  });

  it('reads a tags column as space-separated tags', () => {
    const result = rowsToCards([{ line: 1, fields: ['cat', 'chat', ' animals  nouns Animals '] }], ['front', 'back', 'tags']);
    expect(result.cards[0]?.tags).toEqual(['animals', 'nouns']);
  });

  it('keeps a cloze row without a back', () => {
    const result = rowsToCards([{ line: 1, fields: ['The {{c1::cat}} sleeps', ''] }]);
    expect(result.problems).toEqual([]);
    expect(result.cards[0]).toMatchObject({ front: 'The {{c1::cat}} sleeps', back: '' });
  });

  it('skips rows without a front or a back and says which line', () => {
    const result = rowsToCards([
      { line: 3, fields: ['alone'] },
      { line: 4, fields: ['', 'back only'] },
      { line: 5, fields: ['front only', ' '] },
      { line: 6, fields: ['ok', 'fine'] },
    ]);
    expect(result.cards.map((card) => card.line)).toEqual([6]);
    expect(result.problems.map(describeProblem)).toEqual([
      'Line 3: only one field was found, so there is no back; the row is skipped',
      'Line 4: the front is empty; the row is skipped',
      'Line 5: the back is empty; the row is skipped',
    ]);
  });

  it('describes a problem without a line', () => {
    expect(describeProblem({ line: null, message: 'deck 1: odd' })).toBe('Deck 1: odd');
  });
});

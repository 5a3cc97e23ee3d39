import { describe, expect, it } from 'vitest';
import { deckTags, formatTags, hasTag, normaliseTags, parseTagInput, tagQuery } from './tags';

describe('tags', () => {
  it('splits at white space, drops empty parts and keeps the first spelling of a duplicate', () => {
    expect(normaliseTags([' verbs  food ', 'Verbs', 'a\tb\nc'])).toEqual(['verbs', 'food', 'a', 'b', 'c']);
    expect(normaliseTags(['', '   '])).toEqual([]);
  });

  it('reads the editor field with spaces or commas and shows tags with spaces', () => {
    expect(parseTagInput('verbs, food  travel::europe ')).toEqual(['verbs', 'food', 'travel::europe']);
    expect(formatTags(['a', 'b'])).toBe('a b');
    expect(parseTagInput(formatTags(['x', 'y']))).toEqual(['x', 'y']);
  });

  it('matches a tag without regard to case', () => {
    expect(hasTag(['Verbs'], 'verbs')).toBe(true);
    expect(hasTag(['verbs'], 'verb')).toBe(false);
  });

  it('lists a deck’s tags once, sorted', () => {
    expect(deckTags([{ tags: ['food', 'Verbs'] }, { tags: ['verbs', 'animals'] }, { tags: [] }])).toEqual(['animals', 'food', 'Verbs']);
  });

  it('puts the tag in a query, escaped', () => {
    expect(tagQuery('a&b c')).toBe('?tag=a%26b%20c');
  });
});

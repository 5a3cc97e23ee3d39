import { describe, expect, it } from 'vitest';
import { base91, derivedGuid, guidOf, newGuid } from './guid';

describe('guids', () => {
  it('writes numbers in Anki’s base 91', () => {
    expect(base91(0n)).toBe('');
    expect(base91(1n)).toBe('b');
    expect(base91(90n)).toBe('~');
    expect(base91(91n)).toBe('ba');
    // Anki's guid64 of 2^64 - 1 is 10 characters: every guid fits.
    expect(base91((1n << 64n) - 1n)).toHaveLength(10);
  });

  it('makes a guid from 64 random bits, as Anki’s guid64 does', () => {
    const bytes = [0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00];
    expect(newGuid((target) => (target.set(bytes), target))).toBe(base91(256n));
    const made = new Set(Array.from({ length: 200 }, () => newGuid()));
    expect(made.size).toBe(200);
    for (const guid of made) expect(guid).toMatch(/^[A-Za-z0-9!#$%&()*+,\-./:;<=>?@[\]^_`{|}~]{1,10}$/);
  });

  it('draws again on a zero draw, never giving an empty guid', () => {
    let calls = 0;
    expect(newGuid((target) => (target.fill(0), (calls += 1) > 1 && (target[7] = 1), target))).toBe('b');
  });

  it('derives the same guid for the same deck and card, another for another card', () => {
    expect(derivedGuid('deck-1', 'card-1')).toBe(derivedGuid('deck-1', 'card-1'));
    expect(derivedGuid('deck-1', 'card-1')).not.toBe(derivedGuid('deck-1', 'card-2'));
    expect(derivedGuid('deck-1', 'card-1')).not.toBe(derivedGuid('deck-2', 'card-1'));
    expect(derivedGuid('deck-1', 'card-1').length).toBeGreaterThan(0);
    expect(guidOf('deck-1', { id: 'card-1', guid: 'kept' })).toBe('kept');
    expect(guidOf('deck-1', { id: 'card-1', guid: '' })).toBe(derivedGuid('deck-1', 'card-1'));
  });
});

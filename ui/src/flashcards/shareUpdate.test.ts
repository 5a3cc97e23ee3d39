import { describe, expect, it } from 'vitest';
import { defaultMeta, emptyCard, type Card, type Deck } from './deck';
import { hasChanges, parseShareBase, planShareUpdate, shareBaseOf } from './shareUpdate';

const NOW = new Date('2026-11-26T05:00:00Z');

const card = (id: string, front: string, back: string, extra: Partial<Card> = {}): Card => ({ ...emptyCard(id), front, back, ...extra });

const deck = (id: string, cards: Card[], meta: Partial<Deck> = {}): Deck => ({
  ...defaultMeta(),
  name: 'Verbs',
  id,
  cards,
  createdAt: '2026-11-01T00:00:00.000Z',
  type: 'deck',
  version: 1,
  ...meta,
});

const shared = deck('share-1', [card('a', 'eat', 'manger'), card('b', 'drnk', 'boire'), card('c', 'see', 'voir')]);
/** The learner's copy, as "Add to my decks" made it: a new deck id, the shared card ids. */
const copyOf = (source: Deck): Deck => ({ ...source, id: 'copy-1', cards: source.cards.map((c) => ({ ...c })) });

describe('planShareUpdate', () => {
  it('keeps card ids, takes the sharer’s fixes, adds new cards and counts removed ones', () => {
    const copy = copyOf(shared);
    const base = shareBaseOf(shared);
    const next = deck('share-1', [card('a', 'eat', 'manger'), card('b', 'drink', 'boire'), card('d', 'run', 'courir')]);
    const update = planShareUpdate(copy, base, next, NOW);
    expect(update.deck.id).toBe('copy-1');
    expect(update.deck.cards.map((c) => c.id)).toEqual(['a', 'b', 'd']);
    expect(update.deck.cards.map((c) => c.front)).toEqual(['eat', 'drink', 'run']);
    expect(update.added).toEqual([{ front: 'run', back: 'courir' }]);
    expect(update.changed).toEqual([{ before: { front: 'drnk', back: 'boire' }, after: { front: 'drink', back: 'boire' } }]);
    expect(update.removed).toEqual([{ front: 'see', back: 'voir' }]);
    expect(update.kept).toEqual([]);
    expect(update.deck.createdAt).toBe(NOW.toISOString());
    expect(hasChanges(update)).toBe(true);
    expect(update.base).toEqual(shareBaseOf(next));
  });

  it('keeps the learner’s edit of a card the sharer also changed, and of one the sharer removed', () => {
    const copy = copyOf(shared);
    copy.cards[1] = card('b', 'to drink', 'boire');
    copy.cards[2] = card('c', 'to see', 'voir');
    const next = deck('share-1', [card('a', 'eat', 'manger'), card('b', 'drink', 'boire')]);
    const update = planShareUpdate(copy, shareBaseOf(shared), next, NOW);
    expect(update.deck.cards.map((c) => [c.id, c.front])).toEqual([
      ['a', 'eat'],
      ['b', 'to drink'],
      ['c', 'to see'],
    ]);
    expect(update.kept).toEqual([
      { front: 'to drink', back: 'boire' },
      { front: 'to see', back: 'voir' },
    ]);
    expect(update.changed).toEqual([]);
    expect(update.removed).toEqual([]);
  });

  it('keeps the learner’s own cards, removals and suspensions', () => {
    const copy = copyOf(shared);
    copy.cards = [card('a', 'eat', 'manger', { suspended: true }), card('c', 'see', 'voir'), card('mine', 'walk', 'marcher')];
    const next = deck('share-1', [card('a', 'to eat', 'manger'), card('b', 'drink', 'boire'), card('c', 'see', 'voir')]);
    const update = planShareUpdate(copy, shareBaseOf(shared), next, NOW);
    // "b" was removed by the learner: it does not come back; "a" takes the fix and stays suspended.
    expect(update.deck.cards).toEqual([card('a', 'to eat', 'manger', { suspended: true }), card('c', 'see', 'voir'), card('mine', 'walk', 'marcher')]);
    expect(update.added).toEqual([]);
    expect(update.removed).toEqual([]);
  });

  it('takes the deck’s fields the learner did not change, and keeps the ones they did', () => {
    const copy = { ...copyOf(shared), name: 'My verbs' };
    const next = { ...shared, name: 'Verbs (A1)', description: 'Common verbs' };
    const update = planShareUpdate(copy, shareBaseOf(shared), next, NOW);
    expect(update.deck.name).toBe('My verbs');
    expect(update.deck.description).toBe('Common verbs');
    expect(update.detailsChanged).toBe(true);
  });

  it('finds nothing to take when the sharer saved the same deck again', () => {
    const copy = copyOf(shared);
    const update = planShareUpdate(copy, shareBaseOf(shared), { ...shared, createdAt: NOW.toISOString() }, NOW);
    expect(hasChanges(update)).toBe(false);
    expect(update.deck).toBe(copy);
  });

  it('reads a remembered base back, and refuses what is none', () => {
    const base = shareBaseOf(shared);
    expect(parseShareBase(JSON.parse(JSON.stringify(base)))).toEqual(base);
    expect(parseShareBase({ cards: 3 })).toBeNull();
    expect(parseShareBase(null)).toBeNull();
  });
});

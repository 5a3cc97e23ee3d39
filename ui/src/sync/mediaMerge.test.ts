// A card's pictures and sounds (`media`: references to files by SHA-256) through sync's merge and
// canonical form: carried as they are, compared by value (key order never makes an edit), a newer
// list replacing an older one, and removing a card's last picture (a save without the field)
// synced as a removal, not brought back by the last sync's value.
import { describe, expect, it } from 'vitest';
import { deckFromV1, editDeck, renderDeck } from './deckDoc';
import { makeStamp } from './hlc';
import { canonical, emptyState, merge, type DeckDoc, type VaultState } from './merge';

const hash = (c: string) => c.repeat(64);
const ref = (c: string, field = 'front') => ({ hash: hash(c), name: `${c}.jpg`, kind: 'image', field });
/** The same reference with its keys in another order (as another device may write it). */
const reordered = (c: string) => ({ field: 'front', kind: 'image', name: `${c}.jpg`, hash: hash(c) });
const stamper = (wall: number, device: string) => () => makeStamp(wall, 0, device);
const deck = (cards: Record<string, unknown>[]) => ({ id: 'd', name: 'Hund', createdAt: '', cards });
const one = (doc: DeckDoc): VaultState => ({ ...emptyState(), decks: { d: doc } });
const cardsOf = (doc: DeckDoc) => renderDeck('d', doc)?.cards;

describe('a card’s media through sync', () => {
  const synced = deckFromV1({ ...deck([{ id: 'c1', front: 'Hund', back: 'dog', media: [ref('a')] }]), createdAt: new Date(10).toISOString() }, 10, 0);
  const before = renderDeck('d', synced);

  it('is carried as it is, and the same list in another key order is no edit', () => {
    expect(cardsOf(synced)).toEqual([{ id: 'c1', front: 'Hund', back: 'dog', media: [ref('a')] }]);
    expect(canonical([ref('a')])).toBe(canonical([reordered('a')]));
    const same = editDeck(deck([{ id: 'c1', front: 'Hund', back: 'dog', media: [reordered('a')] }]), synced, before, stamper(20, 'a'), 'a');
    expect(same).toEqual(synced);
  });

  it('a picture added on one device and a text edited on the other end in one card', () => {
    const a = editDeck(deck([{ id: 'c1', front: 'Hund', back: 'dog', media: [ref('a'), ref('b', 'back')] }]), synced, before, stamper(20, 'a'), 'a');
    const b = editDeck(deck([{ id: 'c1', front: 'der Hund', back: 'dog', media: [ref('a')] }]), synced, before, stamper(15, 'b'), 'b');
    expect(cardsOf(merge(one(a), one(b)).decks.d as DeckDoc)).toEqual([{ id: 'c1', front: 'der Hund', back: 'dog', media: [ref('a'), ref('b', 'back')] }]);
  });

  it('removing the last picture (a save without the field) is synced as a removal', () => {
    const removed = editDeck(deck([{ id: 'c1', front: 'Hund', back: 'dog' }]), synced, before, stamper(20, 'a'), 'a');
    const merged = merge(one(synced), one(removed));
    expect(cardsOf(merged.decks.d as DeckDoc)).toEqual([{ id: 'c1', front: 'Hund', back: 'dog' }]);
    // Read back from JSON (as another device reads the vault), it is still removed.
    const read = JSON.parse(JSON.stringify(merged)) as VaultState;
    expect(cardsOf(read.decks.d as DeckDoc)).toEqual([{ id: 'c1', front: 'Hund', back: 'dog' }]);
    // And a later picture brings the field back.
    const shown = renderDeck('d', removed);
    const again = editDeck(deck([{ id: 'c1', front: 'Hund', back: 'dog', media: [ref('c')] }]), removed, shown, stamper(30, 'b'), 'b');
    expect(cardsOf(merge(merged, one(again)).decks.d as DeckDoc)).toEqual([{ id: 'c1', front: 'Hund', back: 'dog', media: [ref('c')] }]);
  });
});

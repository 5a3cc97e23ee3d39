import { describe, expect, it } from 'vitest';
import { defaultMeta, emptyCard, type Card, type Deck } from './deck';
import { isDirty } from './editor';
import { canUndo, editorStart, mustAskBeforeUnload, removalOf, restoredMessage, restoreRemoved, shouldConfirmLeave, UNDO_MS } from './editorSession';
import type { Draft } from './storage';

const card = (id: string, front = id): Card => ({ ...emptyCard(id), front, back: `${front}!` });
const deck: Deck = {
  ...defaultMeta(),
  name: 'Saved',
  id: 'd1',
  cards: [card('a'), card('b')],
  createdAt: '2026-01-01T00:00:00.000Z',
  type: 'deck',
  version: 1,
};
const draftOf = (deckId: string | null, name: string): Draft => ({
  deckId,
  meta: { ...defaultMeta(), name },
  cards: [card('x')],
  savedAt: '2026-01-02T10:00:00.000Z',
});
let n = 0;
const makeId = () => `new-${++n}`;

describe('editorStart', () => {
  it('loads a saved deck as saved when it has no draft', () => {
    const start = editorStart('d1', { deck, deckDraft: null, newDraft: null }, makeId);
    expect(start.restored).toBeNull();
    expect(start.state.meta.name).toBe('Saved');
    expect(isDirty(start.state)).toBe(false);
  });

  it('restores a saved deck’s own draft on top of it, unsaved and announced', () => {
    const start = editorStart('d1', { deck, deckDraft: draftOf('d1', 'Renamed'), newDraft: draftOf(null, 'Other') }, makeId);
    expect(start.state.deckId).toBe('d1');
    expect(start.state.meta.name).toBe('Renamed');
    expect(isDirty(start.state)).toBe(true);
    expect(start.restored).toEqual({ savedAt: '2026-01-02T10:00:00.000Z' });
  });

  it('takes an older version’s draft of this deck from deck:create:draft, but not a new deck’s', () => {
    expect(editorStart('d1', { deck, deckDraft: null, newDraft: draftOf('d1', 'Legacy') }, makeId).state.meta.name).toBe('Legacy');
    expect(editorStart('d1', { deck, deckDraft: null, newDraft: draftOf(null, 'New one') }, makeId).state.meta.name).toBe('Saved');
  });

  it('falls back to the new-deck draft for no id or an unreadable deck (SPEC.md 4), and says so', () => {
    const fromNew = editorStart(null, { deck: null, deckDraft: null, newDraft: draftOf(null, 'Half done') }, makeId);
    expect(fromNew.state.meta.name).toBe('Half done');
    expect(fromNew.state.deckId).toBeNull();
    expect(fromNew.restored).not.toBeNull();
    const unreadable = editorStart('broken', { deck: null, deckDraft: null, newDraft: draftOf(null, 'Draft') }, makeId);
    expect(unreadable.state.meta.name).toBe('Draft');
  });

  it('starts empty with one row and nothing to restore when there is no draft', () => {
    const start = editorStart(null, { deck: null, deckDraft: null, newDraft: null }, makeId);
    expect(start.restored).toBeNull();
    expect(start.state.cards).toHaveLength(1);
    expect(isDirty(start.state)).toBe(false);
    // The new card has its Anki guid from the start (an export of it and of later saves agree).
    expect(start.state.cards[0]?.guid).toMatch(/^\S{1,10}$/);
  });
});

describe('shouldConfirmLeave', () => {
  const failing = () => false;
  const base = { dirty: true, allowed: false, from: '/flashcards/d1/edit', to: '/flashcards', keepDraft: failing };
  it('asks only when unsaved changes would be lost: their draft could not be written', () => {
    expect(shouldConfirmLeave(base)).toBe(true);
    expect(shouldConfirmLeave({ ...base, dirty: false })).toBe(false);
    expect(shouldConfirmLeave({ ...base, allowed: true })).toBe(false);
    expect(shouldConfirmLeave({ ...base, to: base.from })).toBe(false);
  });

  it('lets the navigation go once the draft keeps the changes, and writes it only then', () => {
    const writes: string[] = [];
    const keepDraft = () => {
      writes.push('draft');
      return true;
    };
    expect(shouldConfirmLeave({ ...base, keepDraft })).toBe(false);
    expect(writes).toEqual(['draft']);
    expect(shouldConfirmLeave({ ...base, dirty: false, keepDraft })).toBe(false);
    expect(shouldConfirmLeave({ ...base, allowed: true, keepDraft })).toBe(false);
    expect(shouldConfirmLeave({ ...base, to: base.from, keepDraft })).toBe(false);
    expect(writes).toEqual(['draft']);
  });
});

describe('mustAskBeforeUnload', () => {
  it('lets a reload or a closed tab go when the draft keeps the changes', () => {
    expect(mustAskBeforeUnload({ dirty: true, draftKept: true })).toBe(false);
    expect(mustAskBeforeUnload({ dirty: false, draftKept: true })).toBe(false);
    expect(mustAskBeforeUnload({ dirty: false, draftKept: false })).toBe(false);
  });

  it('asks when unsaved changes could not be written as a draft', () => {
    expect(mustAskBeforeUnload({ dirty: true, draftKept: false })).toBe(true);
  });
});

describe('undo of Remove card', () => {
  const cards = [card('a'), card('b'), card('c')];
  it('puts the removed card back where it was', () => {
    const removed = removalOf(cards, 'b', 1000);
    expect(removed).toMatchObject({ index: 1, card: { id: 'b' } });
    if (!removed) return;
    const after = cards.filter((c) => c.id !== 'b');
    expect(restoreRemoved(after, removed).map((c) => c.id)).toEqual(['a', 'b', 'c']);
  });

  it('puts it at the end when the list got shorter, and never twice', () => {
    const removed = removalOf(cards, 'c', 0);
    if (!removed) throw new Error('no removal');
    expect(restoreRemoved([card('a')], removed).map((c) => c.id)).toEqual(['a', 'c']);
    expect(restoreRemoved(cards, removed).map((c) => c.id)).toEqual(['a', 'b', 'c']);
  });

  it('offers Undo for UNDO_MS only, and nothing for an unknown card', () => {
    const removed = removalOf(cards, 'a', 1000);
    expect(canUndo(removed, 1000 + UNDO_MS - 1)).toBe(true);
    expect(canUndo(removed, 1000 + UNDO_MS)).toBe(false);
    expect(removalOf(cards, 'zz', 0)).toBeNull();
    expect(canUndo(null, 0)).toBe(false);
  });
});

describe('restoredMessage', () => {
  it('names the time when the draft has one', () => {
    expect(restoredMessage(null)).toBe('Restored your unsaved changes.');
    expect(restoredMessage('not a date')).toBe('Restored your unsaved changes.');
    expect(restoredMessage('2020-05-01T10:00:00.000Z', new Date(), 'en-GB')).toMatch(/^Restored your unsaved changes from .*2020.*\.$/);
  });
});

import { describe, expect, it } from 'vitest';
import { defaultMeta, emptyCard, type Card } from './deck';
import {
  addCard,
  dismissConflict,
  canSave,
  editorReducer,
  filledCount,
  initialEditorState,
  saveBlocker,
  isDirty,
  moveCardBy,
  moveCardTo,
  removeCard,
  setCardTags,
  updateCard,
} from './editor';

const card = (id: string, front = '', back = ''): Card => ({ ...emptyCard(id), front, back });
const ids = (cards: readonly Card[]) => cards.map((c) => c.id);
const abc = [card('a'), card('b'), card('c')];

describe('card operations', () => {
  it('adds at the end by default, or at an index', () => {
    expect(ids(addCard(abc, card('d')))).toEqual(['a', 'b', 'c', 'd']);
    expect(ids(addCard(abc, card('d'), 1))).toEqual(['a', 'd', 'b', 'c']);
    expect(ids(addCard(abc, card('d'), 99))).toEqual(['a', 'b', 'c', 'd']);
  });
  it('removes by id and ignores unknown ids', () => {
    expect(ids(removeCard(abc, 'b'))).toEqual(['a', 'c']);
    expect(ids(removeCard(abc, 'zz'))).toEqual(['a', 'b', 'c']);
  });
  it('updates one field and keeps the other cards identical', () => {
    const next = updateCard(abc, 'b', 'front', 'dog');
    expect(next[1]).toEqual({ ...card('b'), front: 'dog' });
    expect(next[0]).toBe(abc[0]);
    expect(next[2]).toBe(abc[2]);
    expect(abc[1]?.front).toBe('');
  });
  it('returns the same list when nothing changes', () => {
    expect(updateCard(abc, 'b', 'front', '')).toBe(abc);
    expect(updateCard(abc, 'zz', 'front', 'x')).toBe(abc);
  });
  it('moves by one position and not past either end', () => {
    expect(ids(moveCardBy(abc, 'b', -1))).toEqual(['b', 'a', 'c']);
    expect(ids(moveCardBy(abc, 'b', 1))).toEqual(['a', 'c', 'b']);
    expect(moveCardBy(abc, 'a', -1)).toBe(abc);
    expect(moveCardBy(abc, 'c', 1)).toBe(abc);
  });
  it('moves from index to index, clamping the target', () => {
    expect(ids(moveCardTo(abc, 0, 2))).toEqual(['b', 'c', 'a']);
    expect(ids(moveCardTo(abc, 2, 0))).toEqual(['c', 'a', 'b']);
    expect(ids(moveCardTo(abc, 0, 50))).toEqual(['b', 'c', 'a']);
    expect(moveCardTo(abc, 1, 1)).toBe(abc);
    expect(moveCardTo(abc, 5, 0)).toBe(abc);
  });
});

describe('editor reducer', () => {
  const start = () => initialEditorState(null, defaultMeta(), [card('a')]);

  it('starts clean and not saveable', () => {
    const state = start();
    expect(isDirty(state)).toBe(false);
    expect(canSave(state)).toBe(false);
    expect(filledCount(state)).toBe(0);
  });
  it('becomes saveable with a name and a complete card', () => {
    let state = editorReducer(start(), { type: 'setMeta', patch: { name: 'French' } });
    state = editorReducer(state, { type: 'updateCard', id: 'a', field: 'front', value: 'cat' });
    expect(canSave(state)).toBe(false);
    expect(filledCount(state)).toBe(1);
    state = editorReducer(state, { type: 'updateCard', id: 'a', field: 'back', value: 'chat' });
    expect(canSave(state)).toBe(true);
    expect(isDirty(state)).toBe(true);
  });
  it('counts a revision per change and none for a no-op', () => {
    const state = start();
    const same = editorReducer(state, { type: 'updateCard', id: 'a', field: 'front', value: '' });
    expect(same).toBe(state);
    const moved = editorReducer(state, { type: 'moveCardBy', id: 'a', delta: -1 });
    expect(moved).toBe(state);
    const added = editorReducer(state, { type: 'addCard', card: card('b') });
    expect(added.revision).toBe(1);
    expect(ids(added.cards)).toEqual(['a', 'b']);
  });
  it('replaces all cards', () => {
    const state = editorReducer(start(), { type: 'replaceCards', cards: [card('x'), card('y')] });
    expect(ids(state.cards)).toEqual(['x', 'y']);
  });
  it('removes, and moves by index', () => {
    let state = initialEditorState(null, defaultMeta(), abc);
    state = editorReducer(state, { type: 'moveCardTo', from: 2, to: 0 });
    expect(ids(state.cards)).toEqual(['c', 'a', 'b']);
    state = editorReducer(state, { type: 'removeCard', id: 'a' });
    expect(ids(state.cards)).toEqual(['c', 'b']);
  });
  it('turns a new deck into an existing one when saved, and stays dirty for edits made meanwhile', () => {
    let state = editorReducer(start(), { type: 'setMeta', patch: { name: 'x' } });
    const savedAt = state.revision;
    state = editorReducer(state, { type: 'setMeta', patch: { author: 'Ada' } });
    state = editorReducer(state, { type: 'saved', deckId: 'd1', revision: savedAt });
    expect(state.deckId).toBe('d1');
    expect(isDirty(state)).toBe(true);
    state = editorReducer(state, { type: 'saved', deckId: 'd1', revision: state.revision });
    expect(isDirty(state)).toBe(false);
  });
  it('loads a deck as a clean state', () => {
    const state = editorReducer(editorReducer(start(), { type: 'setMeta', patch: { name: 'x' } }), {
      type: 'load',
      deckId: 'd2',
      meta: { ...defaultMeta(), name: 'Loaded' },
      cards: abc,
    });
    expect(state.deckId).toBe('d2');
    expect(state.meta.name).toBe('Loaded');
    expect(isDirty(state)).toBe(false);
  });
});

describe('tags in the editor', () => {
  it('sets one card’s tags and keeps the list when they are unchanged', () => {
    const cards = [card('a'), card('b')];
    const tagged = setCardTags(cards, 'a', ['x', 'y']);
    expect(tagged[0]?.tags).toEqual(['x', 'y']);
    expect(tagged[1]).toBe(cards[1]);
    expect(setCardTags(tagged, 'a', ['x', 'y'])).toBe(tagged);
    const state = editorReducer(initialEditorState(null, defaultMeta(), cards), { type: 'setTags', id: 'b', tags: ['z'] });
    expect(state.cards[1]?.tags).toEqual(['z']);
    expect(isDirty(state)).toBe(true);
  });
});

describe('saveBlocker', () => {
  const complete = { ...emptyCard('c1'), front: 'cat', back: 'chat' };
  const state = (name: string, cards: Card[]) => initialEditorState(null, { ...defaultMeta(), name }, cards);
  it('says what is missing, and nothing once the deck is valid', () => {
    expect(saveBlocker(state('', [emptyCard('c')]))).toBe('To save, give the deck a name and at least one card with both a front and a back.');
    expect(saveBlocker(state('  ', [complete]))).toBe('To save, give the deck a name.');
    expect(saveBlocker(state('French', [{ ...complete, back: ' ' }]))).toBe('To save, fill in both the front and the back of at least one card.');
    expect(saveBlocker(state('French', [complete]))).toBeNull();
  });
});

describe('dismissing a conflict note', () => {
  it('drops the note of that card only, and marks the deck changed', () => {
    const cards: Card[] = [
      { ...emptyCard('a'), front: 'x', conflict: 'back: y' },
      { ...emptyCard('b'), front: 'z', conflict: 'front: w' },
    ];
    expect(dismissConflict(cards, 'a').map((card) => card.conflict)).toEqual([undefined, 'front: w']);
    const once = dismissConflict(cards, 'a');
    expect(dismissConflict(once, 'a')).toBe(once);
    const state = editorReducer(initialEditorState('d', defaultMeta(), cards), { type: 'dismissConflict', id: 'b' });
    expect(isDirty(state)).toBe(true);
    expect(state.cards[1]?.conflict).toBeUndefined();
  });
});

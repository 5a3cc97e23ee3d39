// The deck editor's state machine (SPEC.md 4, "Deck editor"): the card operations as pure list
// functions, and a reducer over metadata, cards and a revision counter that tells the screen when
// there is something new to write as a draft. New card ids come in with the actions.
import type { MediaRef } from './media/ref';
import { countFilledCards, isCompleteCard, isDeckValid, type Card, type CardField, type DeckMeta } from './deck';

export function addCard(cards: readonly Card[], card: Card, at: number = cards.length): Card[] {
  const index = Math.max(0, Math.min(at, cards.length));
  return [...cards.slice(0, index), card, ...cards.slice(index)];
}

export function removeCard(cards: readonly Card[], id: string): Card[] {
  return cards.filter((card) => card.id !== id);
}

/** Replaces one field of one card; the other cards keep their identity so their rows stay memoised. */
export function updateCard(cards: readonly Card[], id: string, field: CardField, value: string): readonly Card[] {
  const index = cards.findIndex((card) => card.id === id);
  const card = cards[index];
  if (!card || card[field] === value) return cards;
  const next = [...cards];
  next[index] = { ...card, [field]: value };
  return next;
}

/** Replaces one card's tags (already normalised); unchanged tags keep the list as it is. */
export function setCardTags(cards: readonly Card[], id: string, tags: readonly string[]): readonly Card[] {
  const index = cards.findIndex((card) => card.id === id);
  const card = cards[index];
  if (!card || (card.tags.length === tags.length && card.tags.every((tag, i) => tag === tags[i]))) return cards;
  const next = [...cards];
  next[index] = { ...card, tags: [...tags] };
  return next;
}

/** Replaces one card's pictures and sounds (media/cardMedia.ts makes the list). */
export function setCardMedia(cards: readonly Card[], id: string, media: readonly MediaRef[]): readonly Card[] {
  const index = cards.findIndex((card) => card.id === id);
  const card = cards[index];
  if (!card || card.media === media) return cards;
  const next = [...cards];
  next[index] = { ...card, media: [...media] };
  return next;
}

/** Moves the card at `from` to `to` (both clamped); the list is unchanged when they are equal. */
/** The card without its conflict note (the texts another device wrote at the same time). */
export function dismissConflict(cards: readonly Card[], id: string): readonly Card[] {
  if (!cards.some((card) => card.id === id && card.conflict !== undefined)) return cards;
  return cards.map((card) => (card.id === id ? { ...card, conflict: undefined } : card));
}

export function moveCardTo(cards: readonly Card[], from: number, to: number): readonly Card[] {
  const last = cards.length - 1;
  if (from < 0 || from > last) return cards;
  const target = Math.max(0, Math.min(to, last));
  if (target === from) return cards;
  const next = [...cards];
  const [moved] = next.splice(from, 1);
  if (moved) next.splice(target, 0, moved);
  return next;
}

/** Moves a card one position up (-1) or down (+1); nothing happens at either end. */
export function moveCardBy(cards: readonly Card[], id: string, delta: -1 | 1): readonly Card[] {
  const from = cards.findIndex((card) => card.id === id);
  const to = from + delta;
  if (from < 0 || to < 0 || to >= cards.length) return cards;
  return moveCardTo(cards, from, to);
}

export interface EditorState {
  /** The saved deck being edited; null until a new deck's first save. */
  deckId: string | null;
  meta: DeckMeta;
  cards: readonly Card[];
  /** Bumped on every change; the draft is written when it moves past `savedRevision`. */
  revision: number;
  savedRevision: number;
}

export type EditorAction =
  | { type: 'load'; deckId: string | null; meta: DeckMeta; cards: readonly Card[]; unsaved?: boolean }
  | { type: 'setMeta'; patch: Partial<DeckMeta> }
  | { type: 'addCard'; card: Card; at?: number }
  | { type: 'removeCard'; id: string }
  | { type: 'updateCard'; id: string; field: CardField; value: string }
  | { type: 'setTags'; id: string; tags: readonly string[] }
  | { type: 'dismissConflict'; id: string }
  | { type: 'setMedia'; id: string; media: readonly MediaRef[] }
  | { type: 'replaceCards'; cards: readonly Card[] }
  | { type: 'moveCardBy'; id: string; delta: -1 | 1 }
  | { type: 'moveCardTo'; from: number; to: number }
  | { type: 'saved'; deckId: string; revision: number };

/** `unsaved` starts the editor with changes not yet saved (a restored draft). */
export function initialEditorState(deckId: string | null, meta: DeckMeta, cards: readonly Card[], unsaved = false): EditorState {
  return { deckId, meta, cards, revision: unsaved ? 1 : 0, savedRevision: 0 };
}

function withCards(state: EditorState, cards: readonly Card[]): EditorState {
  return cards === state.cards ? state : { ...state, cards, revision: state.revision + 1 };
}

export function editorReducer(state: EditorState, action: EditorAction): EditorState {
  switch (action.type) {
    case 'load':
      return initialEditorState(action.deckId, action.meta, action.cards, action.unsaved);
    case 'setMeta':
      return { ...state, meta: { ...state.meta, ...action.patch }, revision: state.revision + 1 };
    case 'addCard':
      return withCards(state, addCard(state.cards, action.card, action.at));
    case 'removeCard':
      return withCards(state, removeCard(state.cards, action.id));
    case 'updateCard':
      return withCards(state, updateCard(state.cards, action.id, action.field, action.value));
    case 'setTags':
      return withCards(state, setCardTags(state.cards, action.id, action.tags));
    case 'dismissConflict':
      return withCards(state, dismissConflict(state.cards, action.id));
    case 'setMedia':
      return withCards(state, setCardMedia(state.cards, action.id, action.media));
    case 'replaceCards':
      return withCards(state, [...action.cards]);
    case 'moveCardBy':
      return withCards(state, moveCardBy(state.cards, action.id, action.delta));
    case 'moveCardTo':
      return withCards(state, moveCardTo(state.cards, action.from, action.to));
    case 'saved':
      // Edits made while saving keep the state dirty: only the saved revision counts as saved.
      return { ...state, deckId: action.deckId, savedRevision: action.revision };
  }
}

export const isDirty = (state: EditorState) => state.revision !== state.savedRevision;
export const canSave = (state: EditorState) => isDeckValid(state.meta.name, state.cards);
export const filledCount = (state: EditorState) => countFilledCards(state.cards);

/**
 * Why Save Deck is disabled, in words shown beside it (SPEC.md 5: a name and one complete card);
 * null when the deck can be saved.
 */
export function saveBlocker(state: EditorState): string | null {
  if (canSave(state)) return null;
  const named = state.meta.name.trim() !== '';
  const complete = state.cards.some(isCompleteCard);
  if (!named && !complete) return 'To save, give the deck a name and at least one card with both a front and a back.';
  if (!named) return 'To save, give the deck a name.';
  return 'To save, fill in both the front and the back of at least one card.';
}

// What keeps the deck editor's work from being lost, as pure functions the screen calls: where the
// editor starts (a stored deck, or its unsaved draft, said so), whether leaving must be confirmed,
// and the removed card that Undo can put back.
import { newGuid } from './guid';
import { emptyCard, metaOf, defaultMeta, type Card, type Deck } from './deck';
import { addCard } from './editor';
import { initialEditorState, type EditorState } from './editor';
import type { Draft } from './storage';

export interface EditorStart {
  state: EditorState;
  /** Set when unsaved changes were restored: the screen says so and offers to discard them. */
  restored: { savedAt: string | null } | null;
}

export interface StartSources {
  /** The stored deck of the route's id, when readable. */
  deck: Deck | null;
  /** The draft of that saved deck (deck:draft:{id}). */
  deckDraft: Draft | null;
  /** The draft under deck:create:draft (a new deck's, or an older version's draft of any deck). */
  newDraft: Draft | null;
}

/**
 * SPEC.md 4: a readable stored deck is loaded, with its own unsaved draft on top when there is one;
 * an unreadable deck or no id falls back to the new-deck draft; else one empty card and defaults.
 */
export function editorStart(routeId: string | null, sources: StartSources, makeId: () => string): EditorStart {
  const withRow = (cards: readonly Card[]) => (cards.length > 0 ? cards : [emptyCard(makeId(), newGuid())]);
  const restoredFrom = (draft: Draft) => ({ savedAt: draft.savedAt ?? null });
  const { deck, newDraft } = sources;
  if (deck) {
    // Earlier versions kept a saved deck's draft under deck:create:draft with its id.
    const draft = sources.deckDraft ?? (newDraft?.deckId === deck.id ? newDraft : null);
    if (draft) {
      return { state: initialEditorState(deck.id, draft.meta, withRow(draft.cards), true), restored: restoredFrom(draft) };
    }
    return { state: initialEditorState(deck.id, metaOf(deck), withRow(deck.cards)), restored: null };
  }
  if (newDraft && (newDraft.deckId === null || newDraft.deckId === routeId)) {
    return { state: initialEditorState(null, newDraft.meta, withRow(newDraft.cards), true), restored: restoredFrom(newDraft) };
  }
  return { state: initialEditorState(null, defaultMeta(), withRow([])), restored: null };
}

// Leaving with unsaved changes follows the rules every editor keeps (SPEC.md 4: the draft is
// written on the way out and comes back when the editor opens again).
export { mustAskBeforeUnload, restoredMessage, shouldConfirmLeave, type LeaveRequest } from '../lib/drafts';

/** How long "Card removed. Undo" stays offered. */
export const UNDO_MS = 10_000;

/** A card just removed from the editor, with its place, so Undo can put it back. */
export interface RemovedCard {
  card: Card;
  index: number;
  /** When it was removed (ms), for the offer's expiry. */
  at: number;
}

/** The removal of card `id`, or null when it is not in the list. */
export function removalOf(cards: readonly Card[], id: string, now: number): RemovedCard | null {
  const index = cards.findIndex((card) => card.id === id);
  const card = cards[index];
  return card ? { card, index, at: now } : null;
}

/** Whether Undo is still offered for `removed` at `now`. */
export const canUndo = (removed: RemovedCard | null, now: number): removed is RemovedCard => removed !== null && now - removed.at < UNDO_MS;

/** The cards with the removed one back in its place (or at the end, when the list got shorter). */
export function restoreRemoved(cards: readonly Card[], removed: RemovedCard): Card[] {
  if (cards.some((card) => card.id === removed.card.id)) return [...cards];
  return addCard(cards, removed.card, removed.index);
}

// What keeps the deck editor's work from being lost, as pure functions the screen calls: where the
// editor starts (a stored deck, or its unsaved draft, said so), whether leaving must be confirmed,
// and the removed card that Undo can put back.
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
  const withRow = (cards: readonly Card[]) => (cards.length > 0 ? cards : [emptyCard(makeId())]);
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

export interface LeaveRequest {
  /** Changes not saved yet. */
  dirty: boolean;
  /** The editor itself is navigating (after a save or a delete), or the visitor already chose. */
  allowed: boolean;
  from: string;
  to: string;
  /** Writes the draft now; false when it could not be written (a full quota, storage disabled). */
  keepDraft: () => boolean;
}

/**
 * In-app navigation away from unsaved changes asks first only when leaving would lose them: the
 * draft is written on the way out and comes back when the editor opens again (SPEC.md 4), so the
 * question is left for a draft that could not be written. Staying on the same page never asks,
 * and the draft is written only when nothing else lets the navigation go.
 */
export function shouldConfirmLeave({ dirty, allowed, from, to, keepDraft }: LeaveRequest): boolean {
  return dirty && !allowed && from !== to && !keepDraft();
}

/**
 * Closing or reloading the tab asks (the browser's "Leave site?") only when leaving would lose
 * something: unsaved changes whose draft could not be written (a full quota, storage disabled).
 * A kept draft comes back on return (SPEC.md 4), so asking then would only stop the reload.
 */
export function mustAskBeforeUnload({ dirty, draftKept }: { dirty: boolean; draftKept: boolean }): boolean {
  return dirty && !draftKept;
}

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

/** "Restored unsaved changes from 16:05." for the notice (the time when the draft knows it). */
export function restoredMessage(savedAt: string | null, locale?: string): string {
  const date = savedAt === null ? null : new Date(savedAt);
  if (!date || Number.isNaN(date.getTime())) return 'Restored your unsaved changes.';
  const today = new Date().toDateString() === date.toDateString();
  const when = today
    ? date.toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit' })
    : date.toLocaleString(locale, { dateStyle: 'medium', timeStyle: 'short' });
  return `Restored your unsaved changes from ${when}.`;
}

// Practice sessions that survive a reload: the round's order, position and results as stored
// under practice:session:{deckId}, and the checks that a stored session still fits the deck
// before it is restored (cards edited or deleted since make it start afresh). Pure.
import * as v from 'valibot';
import { parseOrNull, record } from '../../lib/schema';
import type { PracticeItem, PracticeState } from '../practice';

export const SESSION_VERSION = 1;

/** 'all': the spec's Practice over every card; 'due': "Review due" over the due items. */
export type SessionMode = 'all' | 'due';

export interface SavedSession {
  mode: SessionMode;
  /** The tag the session is limited to; '' for the whole deck (and in sessions stored before tags). */
  tag: string;
  /** The keys of the session's items (what Restart draws from); for 'all', every item of the deck. */
  pool: string[];
  order: string[];
  position: number;
  known: string[];
  unknown: string[];
}

const keys = v.array(v.string());

const SessionSchema = record({
  type: v.literal('practice-session'),
  version: v.literal(SESSION_VERSION),
  mode: v.picklist(['all', 'due']),
  tag: v.fallback(v.string(), ''),
  pool: keys,
  order: keys,
  position: v.pipe(v.number(), v.integer(), v.minValue(0)),
  known: keys,
  unknown: keys,
});

export function toStoredSession(session: SavedSession) {
  return { type: 'practice-session' as const, version: SESSION_VERSION, ...session };
}

export function parseSession(value: unknown): SavedSession | null {
  const stored = parseOrNull(SessionSchema, value);
  if (!stored) return null;
  return {
    mode: stored.mode,
    tag: stored.tag,
    pool: stored.pool,
    order: stored.order,
    position: stored.position,
    known: stored.known,
    unknown: stored.unknown,
  };
}

/** What to store for a session in progress; null once it is complete (nothing to come back to). */
export function sessionToSave(state: PracticeState, mode: SessionMode, tag = ''): SavedSession | null {
  if (state.position >= state.order.length) return null;
  return {
    mode,
    tag,
    pool: state.items.map((item) => item.key),
    order: [...state.order],
    position: state.position,
    known: [...state.known],
    unknown: [...state.unknown],
  };
}

/**
 * The practice state to continue with, or null when the stored session does not fit the deck as
 * it is now: the mode or the tag differs, an item is gone, the results do not match the cards already marked,
 * or it was complete. The card comes back front-up.
 */
export function restoreSession(saved: SavedSession, mode: SessionMode, deckItems: readonly PracticeItem[], tag = ''): PracticeState | null {
  if (saved.mode !== mode || saved.tag !== tag) return null;
  const byKey = new Map(deckItems.map((item) => [item.key, item]));
  const items: PracticeItem[] = [];
  for (const key of saved.pool) {
    const item = byKey.get(key);
    if (!item) return null;
    items.push(item);
  }
  if (mode === 'all' && items.length !== deckItems.length) return null;
  const pool = new Set(saved.pool);
  if (pool.size !== saved.pool.length) return null;
  if (new Set(saved.order).size !== saved.order.length || !saved.order.every((key) => pool.has(key))) return null;
  if (saved.position >= saved.order.length) return null;
  const marked = new Set(saved.order.slice(0, saved.position));
  const results = [...saved.known, ...saved.unknown];
  if (results.length !== saved.position || new Set(results).size !== results.length || !results.every((key) => marked.has(key))) return null;
  return {
    items,
    order: saved.order,
    position: saved.position,
    flipped: false,
    animating: null,
    known: saved.known,
    unknown: saved.unknown,
  };
}

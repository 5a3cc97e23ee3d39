// Sessions that survive a reload: what is stored, and when a stored session may be restored.
import { describe, expect, it } from 'vitest';
import { defaultMeta, emptyCard, normaliseForSave } from '../deck';
import { createSession, practiceItems, practiceReducer, type PracticeState } from '../practice';
import { parseSession, restoreSession, sessionToSave, toStoredSession } from './session';

const deck = normaliseForSave(
  'd',
  { ...defaultMeta(), name: 'D' },
  ['a', 'b', 'c', 'd'].map((id) => ({ ...emptyCard(id), front: `f-${id}`, back: `b-${id}` })),
  new Date(0),
);
const items = practiceItems(deck);
const fixed = () => 0.3;

function markNext(state: PracticeState, mark: 'known' | 'unknown'): PracticeState {
  let next = practiceReducer(state, { type: 'flip' });
  next = practiceReducer(next, { type: 'mark', mark });
  return practiceReducer(next, { type: 'swipeDone' });
}

describe('practice session persistence', () => {
  it('stores order, position and results, and restores them with the card front-up', () => {
    let state = createSession(items, fixed);
    state = markNext(state, 'known');
    state = markNext(state, 'unknown');
    state = practiceReducer(state, { type: 'flip' });
    const saved = sessionToSave(state, 'all');
    expect(saved).toMatchObject({ mode: 'all', position: 2, order: state.order, known: state.known, unknown: state.unknown });
    if (!saved) return;
    const stored = parseSession(JSON.parse(JSON.stringify(toStoredSession(saved))));
    expect(stored).toEqual(saved);
    if (!stored) return;
    const restored = restoreSession(stored, 'all', practiceItems(deck));
    expect(restored).toEqual({ ...state, flipped: false });
  });

  it('restores a session only for the tag it was limited to', () => {
    const state = markNext(createSession(items, fixed), 'known');
    const saved = sessionToSave(state, 'all', 'verbs');
    expect(saved?.tag).toBe('verbs');
    if (!saved) return;
    expect(restoreSession(saved, 'all', items, 'verbs')).not.toBeNull();
    expect(restoreSession(saved, 'all', items)).toBeNull();
    // Sessions stored before tags were for the whole deck.
    const older: Record<string, unknown> = { ...toStoredSession(saved) };
    delete older.tag;
    expect(parseSession(older)?.tag).toBe('');
  });

  it('stores nothing for a complete session', () => {
    let state = createSession(items, fixed);
    for (let i = 0; i < items.length; i += 1) state = markNext(state, 'known');
    expect(sessionToSave(state, 'all')).toBeNull();
  });

  it('restores a Review due session over its own cards, and a Practice unknown again round', () => {
    const due = items.filter((item) => item.key !== 'b');
    let state = markNext(createSession(due, fixed), 'unknown');
    for (let i = 1; i < due.length; i += 1) state = markNext(state, 'known');
    state = practiceReducer(state, { type: 'practiceUnknown', random: fixed });
    const saved = sessionToSave(state, 'due');
    expect(saved?.pool).toEqual(['a', 'c', 'd']);
    if (!saved) return;
    // Nothing marked yet in this round: storing it is fine, restoring it needs a mark first.
    state = markNext(state, 'known');
    const again = sessionToSave(state, 'due');
    if (!again) {
      // The single unknown card was the whole round: complete, nothing to restore.
      expect(state.position).toBe(state.order.length);
      return;
    }
    expect(restoreSession(again, 'due', items)?.items.map((item) => item.key)).toEqual(['a', 'c', 'd']);
  });

  it('refuses a stored session that no longer fits the deck or the mode', () => {
    const state = markNext(createSession(items, fixed), 'known');
    const saved = sessionToSave(state, 'all');
    if (!saved) throw new Error('expected a session');
    expect(restoreSession(saved, 'due', items)).toBeNull();
    expect(restoreSession(saved, 'all', items.slice(1))).toBeNull();
    const added = practiceItems({ ...deck, cards: [...deck.cards, { ...emptyCard('e'), front: 'f', back: 'b' }] });
    expect(restoreSession(saved, 'all', added)).toBeNull();
    expect(restoreSession({ ...saved, position: 9 }, 'all', items)).toBeNull();
    expect(restoreSession({ ...saved, known: [] }, 'all', items)).toBeNull();
    expect(restoreSession({ ...saved, known: [saved.order[3] ?? ''] }, 'all', items)).toBeNull();
    expect(restoreSession({ ...saved, order: [...saved.order, 'zz'] }, 'all', items)).toBeNull();
    expect(restoreSession({ ...saved, order: [saved.order[0] ?? '', saved.order[0] ?? ''] }, 'all', items)).toBeNull();
  });

  it('reads only the stored shape of a session', () => {
    for (const value of [
      null,
      'x',
      {},
      { type: 'practice-session', version: 2 },
      { type: 'practice-session', version: 1, mode: 'some', pool: [], order: [], position: 0, known: [], unknown: [] },
    ]) {
      expect(parseSession(value)).toBeNull();
    }
    expect(parseSession({ type: 'practice-session', version: 1, mode: 'all', pool: [], order: [], position: -1, known: [], unknown: [] })).toBeNull();
  });
});

import { describe, expect, it } from 'vitest';
import { emptyCard, type Card } from './deck';
import {
  canMark,
  canUndo,
  createSession,
  faces,
  isComplete,
  itemAt,
  practiceCount,
  practiceCountText,
  practiceItems,
  practiceReducer,
  progress,
  reviewList,
  shuffle,
  summary,
  SWIPE_MS,
  type PracticeAction,
  type PracticeState,
} from './practice';

const card = (id: string, front: string, back: string): Card => ({ ...emptyCard(id), front, back });
const cards = [card('a', 'cat', 'chat'), card('b', 'dog', 'chien'), card('c', 'one', 'un')];
/** random() = 0.999… leaves Fisher-Yates' order unchanged (j = i every step). */
const identity = () => 0.999999;
const session = (bidirectional = false) => createSession(practiceItems({ cards, bidirectional }), identity);
const run = (state: PracticeState, ...actions: PracticeAction[]) => actions.reduce(practiceReducer, state);
const markAs = (mark: 'known' | 'unknown'): PracticeAction[] => [{ type: 'flip' }, { type: 'mark', mark }, { type: 'swipeDone' }];

describe('shuffle', () => {
  it('is Fisher-Yates driven by the injected random', () => {
    expect(shuffle([1, 2, 3, 4], identity)).toEqual([1, 2, 3, 4]);
    // random() = 0 swaps each position i with 0: [1,2,3,4] → [4,2,3,1] → [3,2,4,1] → [2,3,4,1]
    expect(shuffle([1, 2, 3, 4], () => 0)).toEqual([2, 3, 4, 1]);
  });
  it('keeps every element and does not touch the input', () => {
    const input = Array.from({ length: 50 }, (_, i) => i);
    const output = shuffle(input, Math.random);
    expect([...output].sort((a, b) => a - b)).toEqual(input);
    expect(input[0]).toBe(0);
  });
  it('makes every permutation of three reachable', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 500; i += 1) seen.add(shuffle(['a', 'b', 'c'], Math.random).join(''));
    expect(seen.size).toBe(6);
  });
});

describe('practice items', () => {
  it('keeps only cards with both sides non-blank', () => {
    const items = practiceItems({ cards: [card('a', 'x', 'y'), card('b', ' ', 'y'), card('c', 'x', '')], bidirectional: false });
    expect(items.map((i) => i.key)).toEqual(['a']);
  });
  it('holds each card in both directions when bidirectional', () => {
    const items = practiceItems({ cards, bidirectional: true });
    expect(items).toHaveLength(6);
    const reverse = items.find((i) => i.reverse && i.card.id === 'b');
    expect(reverse).toBeDefined();
    if (reverse) expect(faces(reverse)).toEqual({ prompt: 'chien', answer: 'dog' });
    const forward = items.find((i) => !i.reverse && i.card.id === 'b');
    if (forward) expect(faces(forward)).toEqual({ prompt: 'dog', answer: 'chien' });
    expect(new Set(items.map((i) => i.key)).size).toBe(6);
  });
});

describe('what practice counts beside "N cards"', () => {
  it('says nothing when practice counts one per card', () => {
    expect(practiceCountText(3, practiceCount({ cards, bidirectional: false }))).toBeNull();
  });

  it('says what a cloze card with two gaps is, and counts what "N due" counts', () => {
    const deck = { cards: [...cards, card('z', 'Der {{c1::Hund}} {{c2::bellt}}', '')], bidirectional: false };
    const count = practiceCount(deck);
    expect(count.items).toBe(practiceItems(deck).length);
    expect(practiceCountText(4, count)).toBe('5 to practice: 1 cloze card has 2 gaps, each practiced as a card of its own');
  });

  it('names each reason: both ways, suspended cards, cards without both sides', () => {
    const deck = { cards: [...cards, { ...card('s', 'sun', 'soleil'), suspended: true }, card('h', 'half', '')], bidirectional: true };
    const count = practiceCount(deck);
    expect(count.items).toBe(practiceItems(deck).length);
    expect(practiceCountText(5, count)).toBe('6 to practice: each card both ways; 1 suspended; 1 without both sides');
  });
});

describe('practice reducer', () => {
  it('starts front-up at position 0 with empty results', () => {
    const state = session();
    expect(state.order).toEqual(['a', 'b', 'c']);
    expect(state).toMatchObject({ position: 0, flipped: false, animating: null, known: [], unknown: [] });
    expect(progress(state)).toBe(0);
    expect(itemAt(state, 0)?.card.front).toBe('cat');
  });
  it('toggles the flipped flag', () => {
    const once = run(session(), { type: 'flip' });
    expect(once.flipped).toBe(true);
    expect(run(once, { type: 'flip' }).flipped).toBe(false);
  });
  it('ignores a mark before the card is flipped', () => {
    const state = session();
    expect(canMark(state)).toBe(false);
    expect(run(state, { type: 'mark', mark: 'known' })).toBe(state);
  });
  it('unflips and starts the swipe-out on a mark, recording nothing yet', () => {
    const state = run(session(), { type: 'flip' }, { type: 'mark', mark: 'known' });
    expect(state).toMatchObject({ flipped: false, animating: 'known', position: 0, known: [] });
  });
  it('ignores flips, marks and undo while the swipe-out runs', () => {
    const animating = run(session(), ...markAs('known').slice(0, 2));
    expect(run(animating, { type: 'flip' })).toBe(animating);
    expect(run(animating, { type: 'mark', mark: 'unknown' })).toBe(animating);
    const later = run(session(), ...markAs('known'), { type: 'flip' }, { type: 'mark', mark: 'unknown' });
    expect(canUndo(later)).toBe(false);
    expect(run(later, { type: 'undo' })).toBe(later);
  });
  it('records the id and advances when the swipe-out ends', () => {
    const state = run(session(), ...markAs('known'));
    expect(state).toMatchObject({ animating: null, flipped: false, position: 1, known: ['a'], unknown: [] });
    expect(progress(state)).toBeCloseTo(1 / 3);
    const next = run(state, ...markAs('unknown'));
    expect(next).toMatchObject({ position: 2, known: ['a'], unknown: ['b'] });
  });
  it('ignores a stray swipeDone', () => {
    const state = session();
    expect(run(state, { type: 'swipeDone' })).toBe(state);
  });
  it('swipes for about 470 ms', () => {
    expect(SWIPE_MS).toBe(470);
  });
  it('completes when the position reaches the count and summarises', () => {
    const done = run(session(), ...markAs('known'), ...markAs('unknown'), ...markAs('known'));
    expect(isComplete(done)).toBe(true);
    expect(progress(done)).toBe(1);
    expect(summary(done)).toEqual({ known: 2, unknown: 1, total: 3 });
    expect(run(done, { type: 'flip' })).toBe(done);
  });
  it('lists the review with the unknown first', () => {
    const done = run(session(), ...markAs('known'), ...markAs('unknown'), ...markAs('known'));
    expect(reviewList(done).map((e) => [e.item.key, e.known])).toEqual([
      ['b', false],
      ['a', true],
      ['c', true],
    ]);
  });
  it('undoes the last mark, bringing the card back answer-up', () => {
    const state = run(session(), ...markAs('known'), ...markAs('unknown'));
    const undone = run(state, { type: 'undo' });
    expect(undone).toMatchObject({ position: 1, flipped: true, known: ['a'], unknown: [] });
    const twice = run(undone, { type: 'undo' });
    expect(twice).toMatchObject({ position: 0, flipped: true, known: [], unknown: [] });
    expect(canUndo(twice)).toBe(false);
    expect(run(twice, { type: 'undo' })).toBe(twice);
  });
  it('undoes from the completion screen', () => {
    const done = run(session(), ...markAs('known'), ...markAs('known'), ...markAs('unknown'));
    const back = run(done, { type: 'undo' });
    expect(isComplete(back)).toBe(false);
    expect(back.unknown).toEqual([]);
  });
  it('restarts with all cards reshuffled and results cleared', () => {
    const done = run(session(), ...markAs('known'), ...markAs('unknown'), ...markAs('known'));
    const restarted = run(done, { type: 'restart', random: () => 0 });
    expect(restarted).toMatchObject({ position: 0, flipped: false, known: [], unknown: [] });
    expect(restarted.order).toEqual(['b', 'c', 'a']);
  });
  it('practises only the unknown cards again, reshuffled, results cleared', () => {
    const done = run(session(), ...markAs('unknown'), ...markAs('known'), ...markAs('unknown'));
    const again = run(done, { type: 'practiceUnknown', random: identity });
    expect(again.order).toEqual(['a', 'c']);
    expect(again).toMatchObject({ position: 0, known: [], unknown: [] });
    expect(summary(again).total).toBe(2);
    // The full deck stays available to Restart.
    expect(run(again, { type: 'restart', random: identity }).order).toEqual(['a', 'b', 'c']);
  });
  it('does nothing for practice unknown again when all were known', () => {
    const done = run(session(), ...markAs('known'), ...markAs('known'), ...markAs('known'));
    expect(run(done, { type: 'practiceUnknown', random: identity })).toBe(done);
  });
  it('practises both directions as separate items', () => {
    const state = session(true);
    expect(state.order).toHaveLength(6);
    expect(summary(state).total).toBe(6);
    expect(itemAt(state, 1)?.reverse).toBe(true);
  });
  it('handles a deck without complete cards as an already finished empty session', () => {
    const empty = createSession([], identity);
    expect(isComplete(empty)).toBe(true);
    expect(progress(empty)).toBe(0);
  });
});

// The practice session (SPEC.md 4, "Practice") as a pure reducer: a Fisher-Yates shuffled order of
// items, a position, the flipped flag, the swipe-out animation in flight, and the known and unknown
// lists. With bidirectional practice each card yields two items (SRC→TGT and TGT→SRC). Randomness
// comes in with the actions so every transition is reproducible in tests. A cloze card yields one
// item per cloze number (cloze.ts); suspended cards yield none, and practice may be limited to a tag.
import { clozeAnswer, clozeKey, clozeNumbers, clozeText } from './cloze';
import { isCompleteCard, type Card, type Deck } from './deck';
import { hasTag } from './tags';

/** How long the swipe-out runs before the mark is recorded and the next card shows (SPEC.md 9). */
export const SWIPE_MS = 470;

export type Random = () => number;

export interface PracticeItem {
  /** Unique in a session: the card id, with a suffix for the reverse direction. */
  key: string;
  card: Card;
  /** true for TGT→SRC: the back text is asked and the front is the answer. */
  reverse: boolean;
  /** For a cloze card, the cloze number this item asks (its key: cloze.ts's clozeKey). */
  cloze?: number;
}

export type Mark = 'known' | 'unknown';

export interface PracticeState {
  /** Every item of the deck; Restart draws from it. */
  items: readonly PracticeItem[];
  /** This round's item keys, shuffled. */
  order: readonly string[];
  position: number;
  flipped: boolean;
  /** The mark whose swipe-out is running; marks, flips and undo wait for it. */
  animating: Mark | null;
  known: readonly string[];
  unknown: readonly string[];
}

export type PracticeAction =
  | { type: 'flip' }
  | { type: 'mark'; mark: Mark }
  | { type: 'swipeDone' }
  | { type: 'undo' }
  | { type: 'restart'; random: Random }
  | { type: 'practiceUnknown'; random: Random };

/** Fisher-Yates: every permutation equally likely given a uniform `random` in [0, 1). */
export function shuffle<T>(list: readonly T[], random: Random): T[] {
  const result = [...list];
  for (let i = result.length - 1; i > 0; i -= 1) {
    const j = Math.min(i, Math.floor(random() * (i + 1)));
    const a = result[i] as T;
    result[i] = result[j] as T;
    result[j] = a;
  }
  return result;
}

/**
 * The session's items: complete cards that are not suspended (only those with `tag` when one is
 * given), each twice when the deck is bidirectional; a cloze card once per cloze number instead.
 */
export function practiceItems(deck: Pick<Deck, 'cards' | 'bidirectional'>, tag?: string): PracticeItem[] {
  const items: PracticeItem[] = [];
  for (const card of deck.cards) {
    if (card.suspended || !isCompleteCard(card)) continue;
    if (tag !== undefined && !hasTag(card.tags, tag)) continue;
    const numbers = clozeNumbers(card.front);
    if (numbers.length > 0) {
      for (const number of numbers) items.push({ key: clozeKey(card.id, number), card, reverse: false, cloze: number });
      continue;
    }
    items.push({ key: card.id, card, reverse: false });
    if (deck.bidirectional) items.push({ key: `${card.id}:reverse`, card, reverse: true });
  }
  return items;
}

/**
 * What a deck's practice counts ("N due", "Review due (N)", a session's "n / N"), beside what its
 * "N cards" counts: the items, and why they are not one per card.
 */
export interface PracticeCount {
  items: number;
  /** Cloze cards with more than one cloze number (each number is an item), and the numbers they hold. */
  multiGap: number;
  gaps: number;
  suspended: number;
  /** Cards without both sides (or a cloze front): they give no item. */
  incomplete: number;
  /** Bidirectional: each card that is no cloze card gives two items. */
  bothWays: boolean;
}

export function practiceCount(deck: Pick<Deck, 'cards' | 'bidirectional'>): PracticeCount {
  const count: PracticeCount = { items: 0, multiGap: 0, gaps: 0, suspended: 0, incomplete: 0, bothWays: false };
  for (const card of deck.cards) {
    if (!isCompleteCard(card)) count.incomplete += 1;
    else if (card.suspended) count.suspended += 1;
    else {
      const numbers = clozeNumbers(card.front).length;
      if (numbers > 1) {
        count.multiGap += 1;
        count.gaps += numbers;
      }
      if (numbers === 0 && deck.bidirectional) count.bothWays = true;
      count.items += numbers > 0 ? numbers : deck.bidirectional ? 2 : 1;
    }
  }
  return count;
}

/**
 * The words beside "N cards" when practice counts otherwise, e.g. "13 to practice: 1 cloze card
 * has 2 gaps, each practiced as a card of its own"; null when it counts the same.
 */
export function practiceCountText(cards: number, count: PracticeCount): string | null {
  if (count.items === cards) return null;
  const why: string[] = [];
  if (count.bothWays) why.push('each card both ways');
  if (count.multiGap === 1) why.push(`1 cloze card has ${count.gaps} gaps, each practiced as a card of its own`);
  else if (count.multiGap > 1) why.push(`${count.multiGap} cloze cards have ${count.gaps} gaps, each practiced as a card of its own`);
  if (count.suspended > 0) why.push(`${count.suspended} suspended`);
  if (count.incomplete > 0) why.push(`${count.incomplete} without both sides`);
  return `${count.items} to practice: ${why.join('; ')}`;
}

/** Each tag of the deck's practice items (first spelling, sorted) with the keys of its items. */
export function keysByTag(deck: Pick<Deck, 'cards' | 'bidirectional'>): { tag: string; keys: string[] }[] {
  const byTag = new Map<string, { tag: string; keys: string[] }>();
  for (const item of practiceItems(deck)) {
    for (const tag of item.card.tags) {
      const id = tag.toLocaleLowerCase();
      const entry = byTag.get(id);
      if (entry) entry.keys.push(item.key);
      else byTag.set(id, { tag, keys: [item.key] });
    }
  }
  return [...byTag.values()].sort((a, b) => a.tag.localeCompare(b.tag, undefined, { sensitivity: 'base' }));
}

function round(items: readonly PracticeItem[], keys: readonly string[], random: Random): PracticeState {
  return {
    items,
    order: shuffle(keys, random),
    position: 0,
    flipped: false,
    animating: null,
    known: [],
    unknown: [],
  };
}

export function createSession(items: readonly PracticeItem[], random: Random): PracticeState {
  return round(
    items,
    items.map((item) => item.key),
    random,
  );
}

export const isComplete = (state: PracticeState) => state.position >= state.order.length;

/** What the buttons and arrow keys may do: mark a flipped card while nothing animates. */
export const canMark = (state: PracticeState) => state.flipped && state.animating === null && !isComplete(state);

export const canUndo = (state: PracticeState) => state.position > 0 && state.animating === null;

/** Progress = position / total, from 0 to 1. */
export const progress = (state: PracticeState) => (state.order.length === 0 ? 0 : Math.min(1, state.position / state.order.length));

export function itemAt(state: PracticeState, position: number): PracticeItem | undefined {
  const key = state.order[position];
  return key === undefined ? undefined : state.items.find((item) => item.key === key);
}

export function practiceReducer(state: PracticeState, action: PracticeAction): PracticeState {
  switch (action.type) {
    case 'flip':
      if (state.animating !== null || isComplete(state)) return state;
      return { ...state, flipped: !state.flipped };
    case 'mark':
      if (!canMark(state)) return state;
      return { ...state, flipped: false, animating: action.mark };
    case 'swipeDone': {
      const key = state.order[state.position];
      if (state.animating === null || key === undefined) return state;
      return {
        ...state,
        animating: null,
        flipped: false,
        position: state.position + 1,
        known: state.animating === 'known' ? [...state.known, key] : state.known,
        unknown: state.animating === 'unknown' ? [...state.unknown, key] : state.unknown,
      };
    }
    case 'undo': {
      if (!canUndo(state)) return state;
      const position = state.position - 1;
      const key = state.order[position];
      // The card comes back answer-up: it was seen already, so it can be marked again at once.
      return {
        ...state,
        position,
        flipped: true,
        known: state.known.filter((k) => k !== key),
        unknown: state.unknown.filter((k) => k !== key),
      };
    }
    case 'restart':
      return createSession(state.items, action.random);
    case 'practiceUnknown':
      if (state.unknown.length === 0) return state;
      return round(state.items, state.unknown, action.random);
  }
}

export interface Summary {
  known: number;
  unknown: number;
  total: number;
}

export function summary(state: PracticeState): Summary {
  return { known: state.known.length, unknown: state.unknown.length, total: state.order.length };
}

export interface ReviewEntry {
  item: PracticeItem;
  known: boolean;
}

/** The completion screen's 'Review cards' list: this round's marked items, the unknown first. */
export function reviewList(state: PracticeState): ReviewEntry[] {
  const byKey = new Map(state.items.map((item) => [item.key, item]));
  const entries: ReviewEntry[] = [];
  for (const [keys, known] of [
    [state.unknown, false],
    [state.known, true],
  ] as const) {
    for (const key of keys) {
      const item = byKey.get(key);
      if (item) entries.push({ item, known });
    }
  }
  return entries;
}

/**
 * The two faces of an item: prompt and answer, reversed for TGT→SRC. A cloze item asks its front
 * with the number's texts blank and answers with them revealed (its back is shown as an extra).
 */
export function faces(item: PracticeItem): { prompt: string; answer: string } {
  if (item.cloze !== undefined) return { prompt: clozeText(item.card.front, item.cloze, false), answer: clozeText(item.card.front, item.cloze, true) };
  return item.reverse ? { prompt: item.card.back, answer: item.card.front } : { prompt: item.card.front, answer: item.card.back };
}

/** What a typed answer is compared with: a cloze item's hidden texts, else the answer face. */
export function expectedAnswer(item: PracticeItem): string {
  return item.cloze !== undefined ? clozeAnswer(item.card.front, item.cloze) : faces(item).answer;
}

// A deck as the merge's document (merge.ts's DeckDoc) and back: a document shown as the deck its
// feature stores (live cards in position order, the latest value of each field, the conflict
// note), a local save turned into stamped changes by comparing it with what the last sync left
// (only the fields and cards that differ get new stamps), a deck of the first vault format (v1:
// whole decks with savedAt/baseAt) stamped from its savedAt, and a document read defensively from
// a vault another device wrote. Sync reads a deck's `id`, `cards` and `createdAt` and a card's
// `id` and `conflict`; every other field is carried as it is (a card's `media` list of file
// references too), and a card field a save drops (an empty list the feature does not store) is
// recorded as removed.
import { isRecord } from '../lib/json';
import type { SyncDeck } from '../lib/syncAdapters';
import { after, isStamp, makeStamp, NO_STAMP, wallOf, type Stamp } from './hlc';
import {
  canonical,
  cardLive,
  cardStamp,
  CONFLICT_FIELD,
  deckLive,
  deckStamp,
  isText,
  normaliseField,
  type CardDoc,
  type DeckDoc,
  type Deletion,
  type FieldDoc,
  type Register,
  type Version,
} from './merge';

/** The device id of the stamps a v1 vault's decks are given (the same on every device). */
export const V1_DEVICE = 'v1';
export const v1Stamp = (ms: number): Stamp => (ms > 0 ? makeStamp(ms, 0, V1_DEVICE) : NO_STAMP);

/** A card field's value once a save no longer has the field: the card is shown without it. */
const REMOVED = null;

/** The deck fields sync itself handles. */
const DECK_OWN = new Set(['id', 'cards', 'createdAt']);
/** The card fields sync itself handles. */
const CARD_OWN = new Set(['id', CONFLICT_FIELD]);

type Card = Readonly<Record<string, unknown>> & { readonly id: string };

/** A deck's cards that have an id (the feature gives every card one). */
export function cardsOf(deck: Readonly<Record<string, unknown>>): Card[] {
  const cards = deck.cards;
  if (!Array.isArray(cards)) return [];
  return cards.filter((card): card is Card => isRecord(card) && typeof card.id === 'string');
}

const textOf = (value: string | readonly string[]) => (typeof value === 'string' ? value : value.join(' '));

/** The texts of a card's concurrent edits that lost (one line per text, `field: text`), or ''. */
export function conflictNote(card: CardDoc): string {
  const lines: string[] = [];
  for (const key of Object.keys(card.fields).sort()) {
    const [current, ...others] = card.fields[key]?.versions ?? [];
    const shown = current ? canonical(current.v) : '';
    for (const other of others) {
      if (!isText(other.v) || canonical(other.v) === shown) continue;
      const text = textOf(other.v).trim();
      if (text !== '') lines.push(`${key}: ${text}`);
    }
  }
  return lines.join('\n');
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The deck a document shows, or null when it is deleted. */
export function renderDeck(id: string, doc: DeckDoc): SyncDeck | null {
  if (!deckLive(doc)) return null;
  const meta: Record<string, unknown> = {};
  for (const [key, register] of Object.entries(doc.meta)) if (!DECK_OWN.has(key)) meta[key] = register.v;
  const cards = Object.entries(doc.cards)
    .filter(([, card]) => cardLive(card))
    .sort(([a, x], [b, y]) => {
      const px = typeof x.pos.v === 'number' ? x.pos.v : 0;
      const py = typeof y.pos.v === 'number' ? y.pos.v : 0;
      return px !== py ? px - py : a < b ? -1 : a > b ? 1 : 0;
    })
    .map(([cardId, card]) => {
      const shown: Record<string, unknown> = { id: cardId };
      for (const [key, field] of Object.entries(card.fields)) {
        const current = field.versions[0];
        if (current && !CARD_OWN.has(key) && current.v !== REMOVED) shown[key] = current.v;
      }
      const note = conflictNote(card);
      if (note !== '') shown[CONFLICT_FIELD] = note;
      return shown;
    });
  const name = typeof meta.name === 'string' ? meta.name : '';
  return { ...meta, name, id, cards, createdAt: iso(wallOf(deckStamp(doc))) };
}

/** `positions` with those outside a longest strictly increasing run set to null (moved). */
export function keepLongestRun(positions: readonly (number | null)[]): (number | null)[] {
  // Patience sorting: tails[k] is the index ending the best run of length k + 1.
  const tails: number[] = [];
  const previous: number[] = positions.map(() => -1);
  positions.forEach((pos, index) => {
    if (pos === null) return;
    let low = 0;
    let high = tails.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((positions[tails[mid] ?? 0] ?? 0) < pos) low = mid + 1;
      else high = mid;
    }
    previous[index] = low > 0 ? (tails[low - 1] ?? -1) : -1;
    tails[low] = index;
  });
  const keep = new Set<number>();
  for (let at = tails[tails.length - 1] ?? -1; at >= 0; at = previous[at] ?? -1) keep.add(at);
  return positions.map((pos, index) => (keep.has(index) ? pos : null));
}

/** A value a new card need not carry: what the feature reads a missing field as. */
const isEmpty = (value: unknown) => value === '' || value === false || value === undefined || (Array.isArray(value) && value.length === 0);

/**
 * `deck` as saved here, as a document: `before` is the document the last sync left and `shown`
 * the deck it showed (as the feature read it back; null when there was none or it was deleted).
 * A field or card that differs from `shown` is an edit, stamped with `stamp()` (later than the
 * value it replaces); a card of `shown` that `deck` lacks is deleted; a conflict note the learner
 * dismissed marks the losing texts gone.
 */
export function editDeck(deck: SyncDeck, before: DeckDoc | undefined, shown: SyncDeck | null, stamp: () => Stamp, device: string): DeckDoc {
  const later = (than: Stamp) => {
    const now = stamp();
    return now > than ? now : after(than, device);
  };
  const meta: Record<string, Register> = { ...(before?.meta ?? {}) };
  for (const [key, value] of Object.entries(deck)) {
    if (DECK_OWN.has(key) || value === undefined) continue;
    if (shown && canonical(shown[key]) === canonical(value)) continue;
    meta[key] = { v: value, at: later(meta[key]?.at ?? NO_STAMP) };
  }
  const shownCards = new Map(shown ? cardsOf(shown).map((card) => [card.id, card]) : []);
  const cards: Record<string, CardDoc> = { ...(before?.cards ?? {}) };
  const localCards = cardsOf(deck);
  const localIds = new Set(localCards.map((card) => card.id));
  // Positions: a card from the last sync keeps its own unless it was moved here (it is not in the
  // longest run of cards still in their old order); new and moved cards go between their neighbours.
  const known = keepLongestRun(
    localCards.map((card) => {
      const doc = shownCards.has(card.id) ? before?.cards[card.id] : undefined;
      return doc && typeof doc.pos.v === 'number' ? doc.pos.v : null;
    }),
  );
  const positions = known.map((pos, index) => {
    if (pos !== null) return pos;
    let prev = index - 1;
    while (prev >= 0 && known[prev] === null) prev -= 1;
    let next = index + 1;
    while (next < known.length && known[next] === null) next += 1;
    const low = prev >= 0 ? (known[prev] ?? 0) : null;
    const high = next < known.length ? (known[next] ?? 0) : null;
    if (low !== null && high !== null) return low + ((high - low) * (index - prev)) / (next - prev);
    if (low !== null) return low + (index - prev);
    if (high !== null) return high - (next - index);
    return index;
  });
  localCards.forEach((card, index) => {
    const old = before?.cards[card.id];
    const seen = shownCards.get(card.id);
    const fields: Record<string, FieldDoc> = { ...(old?.fields ?? {}) };
    const edit = (key: string, value: unknown) => {
      if (seen && canonical(seen[key]) === canonical(value)) return;
      const field = fields[key];
      if (!field && !seen && isEmpty(value)) return;
      const base = field?.versions[0]?.at ?? NO_STAMP;
      const version: Version = { v: value, at: later(base), base };
      // A value that is no text has no note to keep the others in: this edit replaces them all.
      const replaced = isText(value) ? [] : (field?.versions ?? []).map((old) => old.at);
      fields[key] = normaliseField([version, ...(field?.versions ?? [])], [...(field?.gone ?? []), ...replaced]);
    };
    for (const [key, value] of Object.entries(card)) {
      if (CARD_OWN.has(key) || value === undefined) continue;
      edit(key, value);
    }
    // A field the last sync showed that this save no longer has (a card's last tag or picture
    // removed: the feature stores no empty list) is removed: null, which no deck shows.
    if (seen) {
      for (const [key, value] of Object.entries(seen)) {
        if (!CARD_OWN.has(key) && value !== undefined && card[key] === undefined) edit(key, REMOVED);
      }
    }
    // A conflict note the learner dismissed: the texts it held are gone.
    const dismissed = seen !== undefined && typeof seen[CONFLICT_FIELD] === 'string' && seen[CONFLICT_FIELD] !== '' && !card[CONFLICT_FIELD];
    if (dismissed) {
      for (const [key, field] of Object.entries(fields)) {
        const [current, ...lost] = field.versions;
        if (current && lost.length > 0) fields[key] = normaliseField([current], [...field.gone, ...lost.map((version) => version.at)]);
      }
    }
    const pos: Register = old && seen && known[index] !== null ? old.pos : { v: positions[index] ?? index, at: later(old?.pos.at ?? NO_STAMP) };
    cards[card.id] = { fields, pos, ...(old?.deleted ? { deleted: old.deleted } : {}) };
  });
  for (const id of shownCards.keys()) {
    const old = cards[id];
    if (localIds.has(id) || !old) continue;
    const seen = cardStamp(old);
    cards[id] = { ...old, deleted: { at: later(old.deleted?.at ?? seen), seen: old.deleted && old.deleted.seen > seen ? old.deleted.seen : seen } };
  }
  return { meta, cards, ...(before?.deleted ? { deleted: before.deleted } : {}) };
}

/** `doc` deleted here: it stays deleted unless it holds a change made after what this device held. */
export function deleteDeck(doc: DeckDoc, stamp: () => Stamp, device: string): DeckDoc {
  const seen = deckStamp(doc);
  const floor = doc.deleted && doc.deleted.at > seen ? doc.deleted.at : seen;
  const now = stamp();
  const at = now > floor ? now : after(floor, device);
  return { ...doc, deleted: { at, seen: doc.deleted && doc.deleted.seen > seen ? doc.deleted.seen : seen } };
}

/** A deck of a v1 vault (or a v1 base), stamped from when it was saved and the version it was edited from. */
export function deckFromV1(deck: SyncDeck | null, savedAt: number, baseAt: number): DeckDoc {
  const at = v1Stamp(savedAt);
  const base = v1Stamp(baseAt);
  if (!deck) return { meta: {}, cards: {}, deleted: { at, seen: base } };
  const meta: Record<string, Register> = {};
  for (const [key, value] of Object.entries(deck)) if (!DECK_OWN.has(key) && value !== undefined) meta[key] = { v: value, at };
  const cards: Record<string, CardDoc> = {};
  cardsOf(deck).forEach((card, index) => {
    const fields: Record<string, FieldDoc> = {};
    for (const [key, value] of Object.entries(card)) {
      if (!CARD_OWN.has(key) && value !== undefined) fields[key] = normaliseField([{ v: value, at, base }], []);
    }
    cards[card.id] = { fields, pos: { v: index, at } };
  });
  return { meta, cards };
}

// --- Reading a document another device wrote ------------------------------------------------------

const stampOr = (value: unknown): Stamp => (isStamp(value) ? value : NO_STAMP);

function parseRegister(value: unknown): Register | null {
  if (!isRecord(value) || !('v' in value)) return null;
  return { v: value.v, at: stampOr(value.at) };
}

function parseDeletion(value: unknown): Deletion | undefined {
  if (!isRecord(value) || !isStamp(value.at)) return undefined;
  return { at: value.at, seen: stampOr(value.seen) };
}

function parseField(value: unknown): FieldDoc | null {
  if (!isRecord(value) || !Array.isArray(value.versions)) return null;
  const versions: Version[] = [];
  for (const raw of value.versions as unknown[]) {
    if (isRecord(raw) && 'v' in raw && isStamp(raw.at)) versions.push({ v: raw.v, at: raw.at, base: stampOr(raw.base) });
  }
  const gone = Array.isArray(value.gone) ? (value.gone as unknown[]).filter(isStamp) : [];
  return normaliseField(versions, gone);
}

function entries<T>(value: unknown, parse: (raw: unknown) => T | null): Record<string, T> {
  const out: Record<string, T> = {};
  if (!isRecord(value)) return out;
  for (const [key, raw] of Object.entries(value)) {
    const parsed = parse(raw);
    if (parsed !== null) out[key] = parsed;
  }
  return out;
}

function parseCard(value: unknown): CardDoc | null {
  if (!isRecord(value)) return null;
  const pos = parseRegister(value.pos) ?? { v: 0, at: NO_STAMP };
  const deleted = parseDeletion(value.deleted);
  return { fields: entries(value.fields, parseField), pos, ...(deleted ? { deleted } : {}) };
}

/** A deck document from a vault or a stored base; null when it is none. */
export function parseDeckDoc(value: unknown): DeckDoc | null {
  if (!isRecord(value)) return null;
  const deleted = parseDeletion(value.deleted);
  return { meta: entries(value.meta, parseRegister), cards: entries(value.cards, parseCard), ...(deleted ? { deleted } : {}) };
}

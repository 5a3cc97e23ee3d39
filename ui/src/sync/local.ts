// This browser's side of sync: reading the decks, review logs and calendar list from localStorage
// under the keys the spec fixes (decks:index, decks:{id}, reviews:{id}, calendars:v1), turning
// them into a VaultState (what changed since the last sync is told by the base it kept), and
// writing a merged state back, touching only what differs. Also the vault's stored form, read
// defensively: it comes from another device.
import { isRecord } from '../lib/json';
import { canonical, isLive, type CalendarList, type DeckEntry, type DeckReviews, type Mark, type VaultState } from './merge';

export const INDEX_KEY = 'decks:index';
export const CALENDARS_KEY = 'calendars:v1';
export const deckKey = (id: string) => `decks:${id}`;
export const reviewsKey = (id: string) => `reviews:${id}`;
/** The review log's stored form (version 1) and the default daily cap of new cards. */
const REVIEWS_VERSION = 1;
const DEFAULT_NEW_PER_DAY = 20;

export const VAULT_TYPE = 'hearth-vault';
export const VAULT_VERSION = 1;

interface LocalReviews {
  newPerDay: number;
  items: Record<string, unknown>;
  log: Mark[];
}

/** What this browser holds now. */
export interface LocalSnapshot {
  order: string[];
  decks: Record<string, Record<string, unknown>>;
  reviews: Record<string, LocalReviews>;
  calendars: unknown[];
}

/** What the last sync left, to tell local edits and deletions from what came from the vault. */
export interface Base {
  decks: Record<string, { savedAt: number; baseAt: number; deleted?: true }>;
  newPerDay: Record<string, { value: number; setAt: number }>;
  calendarsText: string;
  calendarsAt: number;
}

export const emptyBase = (): Base => ({ decks: {}, newPerDay: {}, calendarsText: '[]', calendarsAt: 0 });

function readJson(storage: Storage, key: string): unknown {
  try {
    const raw = storage.getItem(key);
    return raw === null ? undefined : (JSON.parse(raw) as unknown);
  } catch {
    return undefined;
  }
}

function parseMark(value: unknown): Mark | null {
  if (!Array.isArray(value) || value.length !== 3) return null;
  const [key, at, grade] = value as unknown[];
  if (typeof key !== 'string' || key === '' || typeof at !== 'number' || !Number.isFinite(at) || typeof grade !== 'string') return null;
  return [key, at, grade];
}

function parseMarks(value: unknown): Mark[] {
  if (!Array.isArray(value)) return [];
  return (value as unknown[]).flatMap((entry) => {
    const mark = parseMark(entry);
    return mark ? [mark] : [];
  });
}

const cap = (value: unknown) =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : DEFAULT_NEW_PER_DAY;

export function readLocal(storage: Storage): LocalSnapshot {
  const index = readJson(storage, INDEX_KEY);
  const order = Array.isArray(index) ? [...new Set((index as unknown[]).filter((id): id is string => typeof id === 'string' && id !== ''))] : [];
  const decks: LocalSnapshot['decks'] = {};
  const reviews: LocalSnapshot['reviews'] = {};
  for (const id of order) {
    const deck = readJson(storage, deckKey(id));
    if (!isRecord(deck) || (deck.type !== undefined && deck.type !== 'deck')) continue;
    decks[id] = deck;
    const stored = readJson(storage, reviewsKey(id));
    if (isRecord(stored) && stored.type === 'reviews') {
      reviews[id] = { newPerDay: cap(stored.newPerDay), items: isRecord(stored.items) ? stored.items : {}, log: parseMarks(stored.log) };
    }
  }
  const calendars = readJson(storage, CALENDARS_KEY);
  return { order: order.filter((id) => id in decks), decks, reviews, calendars: Array.isArray(calendars) ? (calendars as unknown[]) : [] };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** This browser's data as a VaultState: a deck saved since the base is an edit of the base's version. */
export function localState(snapshot: LocalSnapshot, base: Base, now: number): VaultState {
  const decks: Record<string, DeckEntry> = {};
  for (const [id, deck] of Object.entries(snapshot.decks)) {
    const before = base.decks[id];
    const parsed = typeof deck.createdAt === 'string' ? Date.parse(deck.createdAt) : Number.NaN;
    const saved = Number.isNaN(parsed) ? 0 : parsed;
    if (before && !before.deleted && before.savedAt === saved) {
      decks[id] = { savedAt: saved, baseAt: before.baseAt, deck };
      continue;
    }
    // An edit is later than what it was edited from even when this device's clock is behind.
    const savedAt = before ? Math.max(saved, before.savedAt + 1) : saved;
    decks[id] = { savedAt, baseAt: before?.savedAt ?? 0, deck: savedAt === saved ? deck : { ...deck, createdAt: iso(savedAt) } };
  }
  for (const [id, before] of Object.entries(base.decks)) {
    if (id in decks) continue;
    decks[id] = before.deleted
      ? { savedAt: before.savedAt, baseAt: before.baseAt, deleted: true }
      : { savedAt: Math.max(now, before.savedAt + 1), baseAt: before.savedAt, deleted: true };
  }
  const reviews: Record<string, DeckReviews> = {};
  for (const [id, local] of Object.entries(snapshot.reviews)) {
    const before = base.newPerDay[id];
    const setAt = before && before.value === local.newPerDay ? before.setAt : before ? now : 0;
    reviews[id] = { newPerDay: local.newPerDay, setAt, log: local.log };
  }
  const text = canonical(snapshot.calendars);
  const calendars: CalendarList = {
    savedAt: text === base.calendarsText ? base.calendarsAt : Math.max(now, base.calendarsAt + 1),
    list: snapshot.calendars,
  };
  return { decks, reviews, calendars };
}

export function baseOf(state: VaultState): Base {
  const decks: Base['decks'] = {};
  for (const [id, entry] of Object.entries(state.decks)) {
    decks[id] = isLive(entry) ? { savedAt: entry.savedAt, baseAt: entry.baseAt } : { savedAt: entry.savedAt, baseAt: entry.baseAt, deleted: true };
  }
  const newPerDay: Base['newPerDay'] = {};
  for (const [id, reviews] of Object.entries(state.reviews)) newPerDay[id] = { value: reviews.newPerDay, setAt: reviews.setAt };
  return { decks, newPerDay, calendarsText: canonical(state.calendars.list), calendarsAt: state.calendars.savedAt };
}

/**
 * Writes `state` into storage where it differs from `snapshot`: decks, the index (new decks in
 * front, newest first; the rest in this browser's order), review logs (an item whose marks changed
 * loses its derived state, which the review log then replays) and the calendar list. Returns
 * whether anything was written. A full quota throws; the next sync tries again.
 */
export function applyState(storage: Storage, state: VaultState, snapshot: LocalSnapshot): boolean {
  let changed = false;
  const live = Object.entries(state.decks).filter((pair): pair is [string, DeckEntry & { deck: Record<string, unknown> }] => isLive(pair[1]));
  for (const [id, entry] of live) {
    const local = snapshot.decks[id];
    if (!local || canonical(local) !== canonical(entry.deck)) {
      storage.setItem(deckKey(id), JSON.stringify(entry.deck));
      changed = true;
    }
  }
  for (const id of Object.keys(snapshot.decks)) {
    const entry = state.decks[id];
    if (entry && !isLive(entry)) {
      storage.removeItem(deckKey(id));
      storage.removeItem(reviewsKey(id));
      changed = true;
    }
  }
  const liveIds = new Set(live.map(([id]) => id));
  const arrived = live
    .filter(([id]) => !(id in snapshot.decks))
    .sort(([, a], [, b]) => b.savedAt - a.savedAt)
    .map(([id]) => id);
  const order = [...arrived, ...snapshot.order.filter((id) => liveIds.has(id))];
  if (canonical(order) !== canonical(snapshot.order)) {
    storage.setItem(INDEX_KEY, JSON.stringify(order));
    changed = true;
  }
  for (const [id, reviews] of Object.entries(state.reviews)) {
    if (!liveIds.has(id)) continue;
    const local = snapshot.reviews[id];
    if (local && local.newPerDay === reviews.newPerDay && canonical(local.log) === canonical(reviews.log)) continue;
    const known = new Set((local?.log ?? []).map((mark) => `${mark[1]}\u0000${mark[0]}\u0000${mark[2]}`));
    const touched = new Set(reviews.log.filter((mark) => !known.has(`${mark[1]}\u0000${mark[0]}\u0000${mark[2]}`)).map((mark) => mark[0]));
    const items = Object.fromEntries(Object.entries(local?.items ?? {}).filter(([key]) => !touched.has(key)));
    storage.setItem(reviewsKey(id), JSON.stringify({ type: 'reviews', version: REVIEWS_VERSION, newPerDay: reviews.newPerDay, items, log: reviews.log }));
    changed = true;
  }
  if (canonical(state.calendars.list) !== canonical(snapshot.calendars)) {
    storage.setItem(CALENDARS_KEY, JSON.stringify(state.calendars.list));
    changed = true;
  }
  return changed;
}

/** The vault as it is sealed and uploaded. */
export const toVault = (state: VaultState) => ({ type: VAULT_TYPE, version: VAULT_VERSION, ...state });

const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/** A vault as another device wrote it; entries without their shape are dropped, null when it is no vault. */
export function parseVault(value: unknown): VaultState | null {
  if (!isRecord(value) || value.type !== VAULT_TYPE || value.version !== VAULT_VERSION) return null;
  const decks: Record<string, DeckEntry> = {};
  for (const [id, raw] of Object.entries(isRecord(value.decks) ? value.decks : {})) {
    if (!isRecord(raw)) continue;
    if (raw.deleted === true) decks[id] = { savedAt: num(raw.savedAt), baseAt: num(raw.baseAt), deleted: true };
    else if (isRecord(raw.deck)) decks[id] = { savedAt: num(raw.savedAt), baseAt: num(raw.baseAt), deck: raw.deck };
  }
  const reviews: Record<string, DeckReviews> = {};
  for (const [id, raw] of Object.entries(isRecord(value.reviews) ? value.reviews : {})) {
    if (isRecord(raw)) reviews[id] = { newPerDay: cap(raw.newPerDay), setAt: num(raw.setAt), log: parseMarks(raw.log) };
  }
  const calendars = isRecord(value.calendars) ? value.calendars : {};
  return {
    decks,
    reviews,
    calendars: { savedAt: num(calendars.savedAt), list: Array.isArray(calendars.list) ? (calendars.list as unknown[]) : [] },
  };
}

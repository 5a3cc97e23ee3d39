// This browser's side of sync: what the features' adapters read (decks, review logs, the calendar
// list) as a VaultState, telling local edits and deletions apart by the base the last sync left,
// and a merged state written back through the same adapters, touching only what differs. Also
// the vault's stored form, read defensively (it comes from another device) with the features'
// own checks for what is theirs. No feature's storage key, version or default is declared here.
import { isRecord } from '../lib/json';
import type { CalendarsAdapter, DecksAdapter, DecksSnapshot, SyncAdapters, SyncDeck, SyncedReviews } from '../lib/syncAdapters';
import { canonical, isLive, type CalendarList, type DeckEntry, type DeckReviews, type VaultState } from './merge';

export const VAULT_TYPE = 'hearth-vault';
export const VAULT_VERSION = 1;

/** What this browser holds now. */
export interface LocalSnapshot {
  decks: DecksSnapshot;
  calendars: readonly unknown[];
}

/** What the last sync left, to tell local edits and deletions from what came from the vault. */
export interface Base {
  decks: Record<string, { savedAt: number; baseAt: number; deleted?: true }>;
  newPerDay: Record<string, { value: number; setAt: number }>;
  calendarsText: string;
  calendarsAt: number;
}

export const emptyBase = (): Base => ({ decks: {}, newPerDay: {}, calendarsText: '[]', calendarsAt: 0 });

type Adapters = Pick<SyncAdapters, 'decks' | 'calendars'>;

export function readLocal(adapters: Adapters): LocalSnapshot {
  return { decks: adapters.decks.read(), calendars: adapters.calendars.read() };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** When a deck was saved (epoch ms; 0 when its feature has no readable time for it). */
function savedAtOf(deck: SyncDeck): number {
  const parsed = Date.parse(deck.createdAt);
  return Number.isNaN(parsed) ? 0 : parsed;
}

/** This browser's data as a VaultState: a deck saved since the base is an edit of the base's version. */
export function localState(snapshot: LocalSnapshot, base: Base, now: number): VaultState {
  const decks: Record<string, DeckEntry> = {};
  for (const [id, deck] of Object.entries(snapshot.decks.decks)) {
    const before = base.decks[id];
    const saved = savedAtOf(deck);
    if (before && !before.deleted && before.savedAt === saved) {
      decks[id] = { savedAt: saved, baseAt: before.baseAt, deck };
      continue;
    }
    // An edit is later than what it was edited from even when this device's clock is behind.
    const savedAt = before ? Math.max(saved, before.savedAt + 1) : saved;
    decks[id] = { savedAt, baseAt: before?.savedAt ?? 0, deck: savedAt === saved ? deck : { ...deck, createdAt: iso(savedAt) } };
  }
  // A deck in the list whose record cannot be read here was not deleted here.
  const listed = new Set(snapshot.decks.order);
  for (const [id, before] of Object.entries(base.decks)) {
    if (id in decks || listed.has(id)) continue;
    decks[id] = before.deleted
      ? { savedAt: before.savedAt, baseAt: before.baseAt, deleted: true }
      : { savedAt: Math.max(now, before.savedAt + 1), baseAt: before.savedAt, deleted: true };
  }
  const reviews: Record<string, DeckReviews> = {};
  for (const [id, local] of Object.entries(snapshot.decks.reviews)) {
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

const sameReviews = (a: SyncedReviews, b: SyncedReviews) => a.newPerDay === b.newPerDay && canonical(a.log) === canonical(b.log);

/**
 * Writes `state` through the adapters where it differs from `snapshot`: decks, the list (new
 * decks in front, newest first; the rest in this browser's order), review logs and the calendar
 * list. Returns whether anything was written. A full quota throws; the next sync tries again.
 */
export function applyState(adapters: Adapters, state: VaultState, snapshot: LocalSnapshot): boolean {
  const here = snapshot.decks;
  const put: Record<string, SyncDeck> = {};
  const liveIds = new Set<string>();
  const arrived: [string, number][] = [];
  const listed = new Set(here.order);
  for (const [id, entry] of Object.entries(state.decks)) {
    if (!isLive(entry)) continue;
    liveIds.add(id);
    const local = here.decks[id];
    if (!local || canonical(local) !== canonical(entry.deck)) put[id] = entry.deck;
    if (!listed.has(id)) arrived.push([id, entry.savedAt]);
  }
  const remove = here.order.filter((id) => {
    const entry = state.decks[id];
    return entry !== undefined && !isLive(entry);
  });
  const removed = new Set(remove);
  arrived.sort(([, a], [, b]) => b - a);
  const order = [...arrived.map(([id]) => id), ...here.order.filter((id) => !removed.has(id))];
  const reviews: Record<string, SyncedReviews> = {};
  for (const [id, merged] of Object.entries(state.reviews)) {
    if (!liveIds.has(id)) continue;
    const local = here.reviews[id];
    if (!local || !sameReviews(local, merged)) reviews[id] = { newPerDay: merged.newPerDay, log: merged.log };
  }
  const orderChanged = canonical(order) !== canonical(here.order);
  const decksChanged = Object.keys(put).length > 0 || remove.length > 0 || orderChanged || Object.keys(reviews).length > 0;
  if (decksChanged) adapters.decks.apply({ put, remove, order: orderChanged ? order : null, reviews });
  const calendarsChanged = canonical(state.calendars.list) !== canonical(snapshot.calendars);
  if (calendarsChanged) adapters.calendars.write(state.calendars.list);
  return decksChanged || calendarsChanged;
}

/** The vault as it is sealed and uploaded. */
export const toVault = (state: VaultState) => ({ type: VAULT_TYPE, version: VAULT_VERSION, ...state });

const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/**
 * A vault as another device wrote it; null when it is no vault. Sync's own fields are checked
 * here, each deck, review log and the calendar list by its feature's adapter. A deck this app
 * cannot read (a newer device's) is left out: this browser keeps no copy of it, and the device
 * that wrote it keeps carrying it.
 */
export function parseVault(value: unknown, adapters: { decks: DecksAdapter; calendars: CalendarsAdapter }): VaultState | null {
  if (!isRecord(value) || value.type !== VAULT_TYPE || value.version !== VAULT_VERSION) return null;
  const decks: Record<string, DeckEntry> = {};
  for (const [id, raw] of Object.entries(isRecord(value.decks) ? value.decks : {})) {
    if (!isRecord(raw)) continue;
    if (raw.deleted === true) {
      decks[id] = { savedAt: num(raw.savedAt), baseAt: num(raw.baseAt), deleted: true };
      continue;
    }
    const deck = adapters.decks.parseDeck(raw.deck, id);
    if (deck) decks[id] = { savedAt: num(raw.savedAt), baseAt: num(raw.baseAt), deck };
  }
  const reviews: Record<string, DeckReviews> = {};
  for (const [id, raw] of Object.entries(isRecord(value.reviews) ? value.reviews : {})) {
    if (isRecord(raw)) reviews[id] = { ...adapters.decks.parseReviews(raw.newPerDay, raw.log), setAt: num(raw.setAt) };
  }
  const calendars = isRecord(value.calendars) ? value.calendars : {};
  return {
    decks,
    reviews,
    calendars: { savedAt: num(calendars.savedAt), list: adapters.calendars.parse(calendars.list) },
  };
}

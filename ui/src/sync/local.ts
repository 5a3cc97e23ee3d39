// This browser's side of sync: what the features' adapters read (decks, review logs, the calendar
// list) as a VaultState, telling local edits and deletions apart by the base the last sync left
// (the documents it merged and the decks it showed): only the decks saved since get compared,
// and only the fields and cards that differ get new stamps (deckDoc.ts). A merged state is
// written back through the same adapters, touching only what differs. Also the vault's stored
// form (v2: a document per deck), read defensively (it comes from another device); a v1 vault
// (whole decks with savedAt/baseAt) and a v1 base are converted, each deck stamped from its
// savedAt, the same on every device. No feature's storage key, version or default is declared here.
import { isRecord } from '../lib/json';
import type { CalendarsAdapter, DecksAdapter, DecksSnapshot, SyncAdapters, SyncDeck, SyncedReviews } from '../lib/syncAdapters';
import { deckFromV1, deleteDeck, editDeck, parseDeckDoc, renderDeck, v1Stamp } from './deckDoc';
import { isStamp, NO_STAMP, type Clock, type Stamp } from './hlc';
import type { SyncSeed } from '../lib/syncAdapters';
import {
  canonical,
  deckLive,
  deckStamp,
  sameScheduleSettings,
  withScheduleSettings,
  withSeeds,
  type CalendarList,
  type DeckDoc,
  type DeckReviews,
  type Mark,
  type VaultState,
} from './merge';

export const VAULT_TYPE = 'hearth-vault';
export const VAULT_VERSION = 2;

/** What this browser holds now. */
export interface LocalSnapshot {
  decks: DecksSnapshot;
  calendars: readonly unknown[];
}

/** A deck as a v1 base remembers it (until the first v2 sync replaces the base). */
export interface LegacyDeckBase {
  savedAt: number;
  baseAt: number;
  deleted?: true;
}

/** What the last sync left, to tell local edits and deletions from what came from the vault. */
export interface Base {
  /** The merged documents. */
  decks: Record<string, DeckDoc>;
  /** The createdAt of each deck as the merge showed it: a deck still saying so was not saved here since. */
  shown: Record<string, string>;
  /** A v1 base's decks, converted at the next sync. */
  legacy: Record<string, LegacyDeckBase>;
  /** The cap and, when set, the deck's FSRS parameters and retention: one setting, one stamp. */
  newPerDay: Record<string, { value: number; setAt: Stamp; params?: readonly number[]; retention?: number }>;
  /** The merged review logs, by deck id: with the documents, what the merge's vault parts held. */
  logs: Record<string, readonly Mark[]>;
  /** The merged logs' seeds, by deck id (decks with none are absent). */
  seeds: Record<string, Readonly<Record<string, SyncSeed>>>;
  calendarsText: string;
  calendarsAt: Stamp;
}

export const emptyBase = (): Base => ({ decks: {}, shown: {}, legacy: {}, newPerDay: {}, logs: {}, seeds: {}, calendarsText: '[]', calendarsAt: NO_STAMP });

type Adapters = Pick<SyncAdapters, 'decks' | 'calendars'>;
type DeckReader = Pick<DecksAdapter, 'parseDeck'>;

export function readLocal(adapters: Adapters): LocalSnapshot {
  return { decks: adapters.decks.read(), calendars: adapters.calendars.read() };
}

/** When a deck was saved (epoch ms; 0 when its feature has no readable time for it). */
function savedAtOf(deck: SyncDeck): number {
  const parsed = Date.parse(deck.createdAt);
  return Number.isNaN(parsed) ? 0 : parsed;
}

/** The deck a document shows, as its feature reads it back (null when deleted or unreadable here). */
export function shownDeck(id: string, doc: DeckDoc, reader: DeckReader): SyncDeck | null {
  const rendered = renderDeck(id, doc);
  return rendered && reader.parseDeck(rendered, id);
}

/**
 * This browser's data as a VaultState. A deck unchanged since the last sync is the base's
 * document; a deck saved since is compared with what the base showed, and what differs gets a
 * stamp of `clock` (one stamp for the whole save); a deck of the base missing here was deleted here.
 */
export function localState(snapshot: LocalSnapshot, base: Base, clock: Clock, reader: DeckReader): VaultState {
  let made: Stamp | null = null;
  const stamp = () => (made ??= clock.now());
  const decks: Record<string, DeckDoc> = {};
  for (const [id, deck] of Object.entries(snapshot.decks.decks)) {
    const before = base.decks[id];
    const legacy = base.legacy[id];
    if (before) {
      if (base.shown[id] === deck.createdAt) decks[id] = before;
      else decks[id] = editDeck(deck, before, shownDeck(id, before, reader), stamp, clock.device);
    } else if (legacy && !legacy.deleted) {
      // A v1 base: the deck saved at legacy.savedAt is the synced one; a later save edited it.
      const saved = savedAtOf(deck);
      decks[id] = saved === legacy.savedAt ? deckFromV1(deck, saved, legacy.baseAt) : deckFromV1(deck, Math.max(saved, legacy.savedAt + 1), legacy.savedAt);
    } else {
      decks[id] = editDeck(deck, undefined, null, stamp, clock.device);
    }
  }
  // A deck in the list whose record cannot be read here was not deleted here.
  const listed = new Set(snapshot.decks.order);
  for (const [id, before] of Object.entries(base.decks)) {
    if (id in decks) continue;
    decks[id] = listed.has(id) || !deckLive(before) ? before : deleteDeck(before, stamp, clock.device);
  }
  for (const [id, legacy] of Object.entries(base.legacy)) {
    if (id in decks) continue;
    const tombstone = deckFromV1(null, legacy.savedAt, legacy.baseAt);
    if (legacy.deleted) decks[id] = tombstone;
    else if (!listed.has(id))
      decks[id] = deleteDeck({ meta: {}, cards: {}, deleted: { at: v1Stamp(legacy.savedAt), seen: v1Stamp(legacy.savedAt) } }, stamp, clock.device);
  }
  const reviews: Record<string, DeckReviews> = {};
  for (const [id, local] of Object.entries(snapshot.decks.reviews)) {
    const before = base.newPerDay[id];
    const setAt = before && before.value === local.newPerDay && sameScheduleSettings(before, local) ? before.setAt : before ? stamp() : NO_STAMP;
    reviews[id] = withSeeds(withScheduleSettings({ newPerDay: local.newPerDay, setAt, log: local.log }, local), local.seeds);
  }
  const text = canonical(snapshot.calendars);
  const calendars: CalendarList = {
    savedAt: text === base.calendarsText ? base.calendarsAt : stamp(),
    list: snapshot.calendars,
  };
  return { decks, reviews, calendars };
}

/** What to remember of a merged state for the next sync. */
export function baseOf(state: VaultState): Base {
  const shown: Base['shown'] = {};
  for (const [id, doc] of Object.entries(state.decks)) {
    const deck = renderDeck(id, doc);
    if (deck) shown[id] = deck.createdAt;
  }
  const newPerDay: Base['newPerDay'] = {};
  const logs: Base['logs'] = {};
  const seeds: Base['seeds'] = {};
  for (const [id, reviews] of Object.entries(state.reviews)) {
    newPerDay[id] = withScheduleSettings({ value: reviews.newPerDay, setAt: reviews.setAt }, reviews);
    logs[id] = reviews.log;
    if (reviews.seeds) seeds[id] = reviews.seeds;
  }
  return {
    decks: { ...state.decks },
    shown,
    legacy: {},
    newPerDay,
    logs,
    seeds,
    calendarsText: canonical(state.calendars.list),
    calendarsAt: state.calendars.savedAt,
  };
}

const sameReviews = (a: SyncedReviews, b: SyncedReviews) =>
  a.newPerDay === b.newPerDay && sameScheduleSettings(a, b) && canonical(a.log) === canonical(b.log) && canonical(a.seeds ?? {}) === canonical(b.seeds ?? {});

/**
 * Writes `state` through the adapters where it differs from `snapshot`: decks, the list (new
 * decks in front, newest first; the rest in this browser's order), review logs and the calendar
 * list. Returns whether anything was written. A full quota throws; the next sync tries again. A
 * deck this app cannot read (a newer device's) is left out here, and carried in the vault.
 */
export function applyState(adapters: Adapters, state: VaultState, snapshot: LocalSnapshot): boolean {
  const here = snapshot.decks;
  const put: Record<string, SyncDeck> = {};
  const liveIds = new Set<string>();
  const arrived: [string, string][] = [];
  const listed = new Set(here.order);
  const remove: string[] = [];
  for (const [id, doc] of Object.entries(state.decks)) {
    if (!deckLive(doc)) {
      if (listed.has(id)) remove.push(id);
      continue;
    }
    const deck = shownDeck(id, doc, adapters.decks);
    if (!deck) continue;
    liveIds.add(id);
    const local = here.decks[id];
    if (!local || canonical(local) !== canonical(deck)) put[id] = deck;
    if (!listed.has(id)) arrived.push([id, deckStamp(doc)]);
  }
  const removed = new Set(remove);
  arrived.sort(([x, a], [y, b]) => (a !== b ? (a < b ? 1 : -1) : x < y ? -1 : 1));
  const order = [...arrived.map(([id]) => id), ...here.order.filter((id) => !removed.has(id))];
  const reviews: Record<string, SyncedReviews> = {};
  for (const [id, merged] of Object.entries(state.reviews)) {
    if (!liveIds.has(id)) continue;
    const local = here.reviews[id];
    if (!local || !sameReviews(local, merged))
      reviews[id] = withSeeds(withScheduleSettings({ newPerDay: merged.newPerDay, log: merged.log }, merged), merged.seeds);
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

function parseReviewsOf(value: unknown, adapters: { decks: DecksAdapter }, setAt: (raw: unknown) => Stamp): Record<string, DeckReviews> {
  const reviews: Record<string, DeckReviews> = {};
  for (const [id, raw] of Object.entries(isRecord(value) ? value : {})) {
    if (!isRecord(raw)) continue;
    const parsed = adapters.decks.parseReviews(raw.newPerDay, raw.log, raw.seeds, raw.params, raw.retention);
    reviews[id] = withSeeds(withScheduleSettings({ newPerDay: parsed.newPerDay, setAt: setAt(raw.setAt), log: parsed.log }, parsed), parsed.seeds);
  }
  return reviews;
}

/** A v1 vault (whole decks, the later save winning), as v2 documents stamped from each deck's savedAt. */
function fromV1(value: Record<string, unknown>, adapters: { decks: DecksAdapter; calendars: CalendarsAdapter }): VaultState {
  const decks: Record<string, DeckDoc> = {};
  for (const [id, raw] of Object.entries(isRecord(value.decks) ? value.decks : {})) {
    if (!isRecord(raw)) continue;
    if (raw.deleted === true) {
      decks[id] = deckFromV1(null, num(raw.savedAt), num(raw.baseAt));
      continue;
    }
    const deck = adapters.decks.parseDeck(raw.deck, id);
    if (deck) decks[id] = deckFromV1(deck, num(raw.savedAt), num(raw.baseAt));
  }
  const calendars = isRecord(value.calendars) ? value.calendars : {};
  return {
    decks,
    reviews: parseReviewsOf(value.reviews, adapters, (raw) => v1Stamp(num(raw))),
    calendars: { savedAt: v1Stamp(num(calendars.savedAt)), list: adapters.calendars.parse(calendars.list) },
  };
}

const stampOr = (value: unknown): Stamp => (isStamp(value) ? value : NO_STAMP);

/**
 * A vault as another device wrote it; null when it is no vault or a newer format. Sync's own
 * fields are checked here, each review log and the calendar list by its feature's adapter; a
 * deck's values are checked by its feature when it is shown (applyState).
 */
export function parseVault(value: unknown, adapters: { decks: DecksAdapter; calendars: CalendarsAdapter }): VaultState | null {
  if (!isRecord(value) || value.type !== VAULT_TYPE) return null;
  if (value.version === 1) return fromV1(value, adapters);
  if (value.version !== VAULT_VERSION) return null;
  const decks: Record<string, DeckDoc> = {};
  for (const [id, raw] of Object.entries(isRecord(value.decks) ? value.decks : {})) {
    const doc = parseDeckDoc(raw);
    if (doc) decks[id] = doc;
  }
  const calendars = isRecord(value.calendars) ? value.calendars : {};
  return {
    decks,
    reviews: parseReviewsOf(value.reviews, adapters, stampOr),
    calendars: { savedAt: stampOr(calendars.savedAt), list: adapters.calendars.parse(calendars.list) },
  };
}

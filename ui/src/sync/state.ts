// Sync's own stored state, and the only sync code that touches the browser's storage: this
// browser's vault (id, key, write token, version, when it last synced, whether the server still
// has it), a create under way (its key and write token, kept before the request is sent, so a
// retry after a lost answer gets the same vault instead of a second one), the base of the last
// merge (deflated when large: packedText.ts) and its hash (a v1 base, from before documents per deck, is read as `legacy` and
// converted at the next sync), the share links this browser made or is making, what this browser
// has seen of each blob it opened (the highest version, and whether a body bound to its place
// came: see binding.ts), old vaults a link replacement still has to remove from the server, the
// one-time link for another device made last (handover.ts), the media files each blob is known
// to hold on the server (media.ts), and the hybrid logical clock's state (hlc.ts). Read through schemas like every other stored shape:
// a value without its shape reads as absent.
import * as v from 'valibot';
import { count, entriesOf, listOf, nonEmpty, orNull, parseOrNull, record } from '../lib/schema';
import { parseDeckDoc, v1Stamp as v1StampOf } from './deckDoc';
import { isStamp, NO_STAMP, type ClockState } from './hlc';
import { emptyBase, type Base } from './local';
import type { DeckDoc, Mark } from './merge';
import { packText, unpackText } from './packedText';

export const VAULT_KEY = 'sync:vault';
export const PENDING_VAULT_KEY = 'sync:pendingVault';
export const BASE_KEY = 'sync:base';
/** A hash of the state last synced, so a poll that finds the vault unchanged uploads nothing. */
export const SYNCED_HASH_KEY = 'sync:syncedHash';
export const SHARES_KEY = 'sync:shares';
/** The hybrid logical clock of this browser: wall ms, counter, device id. */
export const CLOCK_KEY = 'sync:clock';
/** The decks added from a share link, with where they came from, so they can follow it. */
export const COPIES_KEY = 'sync:copies';
/** What this browser has seen of shared decks it opened, by share id. */
export const SHARES_SEEN_KEY = 'sync:sharesSeen';
/** Vaults a link replacement left behind, to remove from the server (retried until it answers). */
export const RETIRED_KEY = 'sync:retiredVaults';
/** The one-time link for another device this browser made last (handover.ts), to remove when it makes the next. */
export const HANDOVER_KEY = 'sync:handover';
/** The media files (by their names on the server) this browser knows a vault or shared deck holds, by blob id (media.ts). */
export const MEDIA_SENT_KEY = 'sync:mediaSent';

/** A media file's name on the server (a keyed hash, base64url). */
const MediaName = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,43}$/));

/** A blob's id as the server makes them. */
const BlobId = v.pipe(v.string(), v.regex(/^[0-9a-f]{32}$/));
/** A key or write token as they travel in links (base64url). */
const Secret = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]+$/));
const Time = v.pipe(v.number(), v.finite());

const VaultSchema = record({
  id: BlobId,
  key: Secret,
  token: Secret,
  /** The vault version this browser last merged (0: none yet). */
  version: v.fallback(v.pipe(v.number(), v.integer(), v.minValue(0)), 0),
  lastSyncedAt: orNull(nonEmpty),
  /** The server answered 404: the vault was removed or expired. */
  gone: v.fallback(v.boolean(), false),
  /** The highest vault version opened or written here (refused: anything older). */
  seenVersion: v.fallback(v.pipe(v.number(), v.integer(), v.minValue(0)), 0),
  /** A body bound to this vault's place was opened or written here (refused from then on: unbound ones). */
  boundSeen: v.fallback(v.boolean(), false),
  /** The parts the server holds for `version` (vaultParts.ts); absent when not known (then all are sent). */
  parts: v.optional(v.fallback(v.array(v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,43}$/))), [])),
});

export type VaultRecord = v.InferOutput<typeof VaultSchema>;

/** The key, write token and chosen id of a create whose answer has not come (yet). */
const PendingSchema = record({ key: Secret, token: Secret, id: v.optional(BlobId) });

export type PendingCreate = v.InferOutput<typeof PendingSchema>;

const LegacyDeckSchema = v.pipe(
  record({ savedAt: Time, baseAt: Time, deleted: v.optional(v.literal(true)) }),
  v.transform(({ savedAt, baseAt, deleted }): Base['legacy'][string] => (deleted ? { savedAt, baseAt, deleted } : { savedAt, baseAt })),
);

const StampSchema = v.fallback(v.custom<string>(isStamp), NO_STAMP);

/** A v1 base: a savedAt per deck; times in epoch ms. */
const LegacyBaseSchema = v.pipe(
  record({
    decks: entriesOf(LegacyDeckSchema),
    newPerDay: entriesOf(record({ value: Time, setAt: Time })),
    calendarsText: v.fallback(v.string(), '[]'),
    calendarsAt: count,
  }),
  v.transform((old): Base => ({
    ...emptyBase(),
    legacy: old.decks,
    newPerDay: Object.fromEntries(Object.entries(old.newPerDay).map(([id, { value, setAt }]) => [id, { value, setAt: v1StampOf(setAt) }])),
    calendarsText: old.calendarsText,
    calendarsAt: v1StampOf(old.calendarsAt),
  })),
);

const DocSchema = v.pipe(
  v.custom<DeckDoc>((value) => parseDeckDoc(value) !== null),
  v.transform((value): DeckDoc => parseDeckDoc(value) ?? { meta: {}, cards: {} }),
);

const BaseV2Schema = record({
  version: v.literal(2),
  decks: entriesOf(DocSchema),
  shown: entriesOf(v.string()),
  newPerDay: entriesOf(
    record({
      value: Time,
      setAt: StampSchema,
      params: v.optional(v.array(v.pipe(v.number(), v.finite()))),
      retention: v.optional(v.pipe(v.number(), v.finite())),
    }),
  ),
  /** Absent from bases written before vault parts: then every part is fetched once. */
  logs: entriesOf(v.custom<Mark[]>(Array.isArray)),
  /** Absent from bases written before seeds: then a part holding seeds is fetched once. */
  seeds: entriesOf(entriesOf(record({ through: v.pipe(v.number(), v.finite()), state: v.unknown() }))),
  calendarsText: v.fallback(v.string(), '[]'),
  calendarsAt: StampSchema,
});

const BaseSchema = v.union([
  v.pipe(
    BaseV2Schema,
    v.transform((base): Base => ({
      decks: base.decks,
      shown: base.shown,
      legacy: {},
      newPerDay: base.newPerDay,
      logs: base.logs,
      seeds: base.seeds,
      calendarsText: base.calendarsText,
      calendarsAt: base.calendarsAt,
    })),
  ),
  LegacyBaseSchema,
]);

const ClockSchema = record({
  wall: v.pipe(v.number(), v.integer(), v.minValue(0)),
  counter: v.pipe(v.number(), v.integer(), v.minValue(0)),
  device: v.pipe(v.string(), v.regex(/^[0-9a-z]{1,16}$/)),
});

const Version = v.pipe(v.number(), v.integer(), v.minValue(0));

/**
 * A share link this browser made (with its id), or is making (without: the answer has not come;
 * `chosenId` is the id its create asks for). `version` and `sent` (a fingerprint of the deck it
 * holds) say what the server has, so a save of the deck updates the shared copy only when it
 * changed; links made before they existed have neither (the version is then read from the
 * server).
 */
const ShareSchema = record({
  id: v.optional(BlobId),
  key: Secret,
  token: Secret,
  chosenId: v.optional(BlobId),
  version: v.fallback(v.optional(Version), undefined),
  sent: v.fallback(v.optional(v.string()), undefined),
});

export type ShareRecord = v.InferOutput<typeof ShareSchema>;

/**
 * Where a deck added from a share link came from: the share, its key, the version the copy last
 * took, and what the copy was given then (the flashcards' own shape, read by its adapter).
 */
const CopySchema = record({ shareId: BlobId, key: Secret, version: Version, base: v.unknown() });

export type CopyRecord = v.InferOutput<typeof CopySchema>;

const SeenSchema = record({
  seenVersion: v.fallback(Version, 0),
  boundSeen: v.fallback(v.boolean(), false),
});

export type SeenRecord = v.InferOutput<typeof SeenSchema>;

/**
 * A one-time link this browser made (with its id) or is making (`chosenId`: the id its create asks
 * for): its key, its write token and the vault it hands over.
 */
const HandoverSchema = record({ id: v.optional(BlobId), chosenId: BlobId, key: Secret, token: Secret, vaultId: BlobId });

export type HandoverRecord = v.InferOutput<typeof HandoverSchema>;

/** An old vault to remove, with the token that may. */
const RetiredSchema = record({ id: BlobId, token: Secret });

export type RetiredVault = v.InferOutput<typeof RetiredSchema>;

export interface SyncStore {
  vault(): VaultRecord | null;
  /** Throws when storage refuses (a full quota). */
  setVault(vault: VaultRecord): void;
  pendingVault(): PendingCreate | null;
  /** Throws when storage refuses: a create must not be sent with a token that is not kept. */
  setPendingVault(pending: PendingCreate | null): void;
  /** The base of the last merge, or an empty one. */
  base(): Base;
  syncedHash(): string | null;
  /** The base and the hash of the state it was taken from, together. */
  setBase(base: Base, hash: string): void;
  clearBase(): void;
  /** Forgets the vault, the base and any create under way. */
  forget(): void;
  /** The share links by deck id. */
  shares(): Record<string, ShareRecord>;
  setShare(deckId: string, share: ShareRecord | null): void;
  /** The hybrid logical clock's state, or null before its first stamp. */
  clock(): ClockState | null;
  /** Throws when storage refuses. */
  setClock(state: ClockState): void;
  /** The decks added from a share link, by the copy's deck id. */
  copies(): Record<string, CopyRecord>;
  /** Throws when storage refuses. */
  setCopy(deckId: string, copy: CopyRecord | null): void;
  /** What this browser has seen of the shared deck `shareId` (null: never opened). */
  shareSeen(shareId: string): SeenRecord | null;
  setShareSeen(shareId: string, seen: SeenRecord): void;
  /** Old vaults still to remove from the server. */
  retired(): RetiredVault[];
  /** Throws when storage refuses: a replacement must not go ahead with its old vault forgotten. */
  setRetired(list: RetiredVault[]): void;
  /** The one-time link made (or being made) last, or null. */
  handover(): HandoverRecord | null;
  /** Throws when storage refuses: a link must not be made with a token that is not kept. */
  setHandover(handover: HandoverRecord | null): void;
  /** The media files this browser knows the blob `blobId` holds (sent or found there). */
  mediaSent(blobId: string): Set<string>;
  /** Replaces them (none: forgets the blob); a full storage only means asking the server again. */
  setMediaSent(blobId: string, names: ReadonlySet<string> | null): void;
}

export function createSyncStore(storage: Storage | null): SyncStore {
  const read = <T extends v.GenericSchema>(key: string, schema: T): v.InferOutput<T> | null => {
    try {
      const raw = storage?.getItem(key) ?? null;
      return raw === null ? null : parseOrNull(schema, JSON.parse(raw));
    } catch {
      return null;
    }
  };
  const write = (key: string, value: unknown) => {
    if (!storage) throw new Error('Browser storage is not available in this window.');
    storage.setItem(key, JSON.stringify(value));
  };
  const remove = (...keys: string[]) => {
    try {
      for (const key of keys) storage?.removeItem(key);
    } catch {
      // Nothing more can be done.
    }
  };
  const shares = () => read(SHARES_KEY, entriesOf(ShareSchema)) ?? {};
  const copies = () => read(COPIES_KEY, entriesOf(CopySchema)) ?? {};
  const sharesSeen = () => read(SHARES_SEEN_KEY, entriesOf(SeenSchema)) ?? {};
  const mediaSent = () => read(MEDIA_SENT_KEY, entriesOf(v.array(MediaName))) ?? {};
  return {
    vault: () => read(VAULT_KEY, VaultSchema),
    setVault: (vault) => write(VAULT_KEY, vault),
    pendingVault: () => read(PENDING_VAULT_KEY, PendingSchema),
    setPendingVault: (pending) => (pending ? write(PENDING_VAULT_KEY, pending) : remove(PENDING_VAULT_KEY)),
    base() {
      try {
        const raw = storage?.getItem(BASE_KEY) ?? null;
        const text = raw === null ? null : unpackText(raw);
        return (text === null ? null : parseOrNull(BaseSchema, JSON.parse(text))) ?? emptyBase();
      } catch {
        return emptyBase();
      }
    },
    syncedHash() {
      try {
        return storage?.getItem(SYNCED_HASH_KEY) ?? null;
      } catch {
        return null;
      }
    },
    setBase(base, hash) {
      if (!storage) throw new Error('Browser storage is not available in this window.');
      storage.setItem(BASE_KEY, packText(JSON.stringify({ version: 2, ...base, legacy: undefined })));
      storage.setItem(SYNCED_HASH_KEY, hash);
    },
    clearBase: () => remove(BASE_KEY, SYNCED_HASH_KEY),
    forget: () => remove(VAULT_KEY, BASE_KEY, SYNCED_HASH_KEY, PENDING_VAULT_KEY),
    shares,
    setShare(deckId, share) {
      const rest = Object.fromEntries(Object.entries(shares()).filter(([id]) => id !== deckId));
      write(SHARES_KEY, share ? { ...rest, [deckId]: share } : rest);
    },
    clock: () => read(CLOCK_KEY, ClockSchema),
    setClock: (state) => write(CLOCK_KEY, state),
    copies,
    setCopy(deckId, copy) {
      const rest = Object.fromEntries(Object.entries(copies()).filter(([id]) => id !== deckId));
      write(COPIES_KEY, copy ? { ...rest, [deckId]: copy } : rest);
    },
    shareSeen: (shareId) => sharesSeen()[shareId] ?? null,
    setShareSeen: (shareId, seen) => write(SHARES_SEEN_KEY, { ...sharesSeen(), [shareId]: seen }),
    retired: () => read(RETIRED_KEY, listOf(RetiredSchema)) ?? [],
    setRetired: (list) => (list.length > 0 ? write(RETIRED_KEY, list) : remove(RETIRED_KEY)),
    handover: () => read(HANDOVER_KEY, HandoverSchema),
    setHandover: (handover) => (handover ? write(HANDOVER_KEY, handover) : remove(HANDOVER_KEY)),
    mediaSent: (blobId) => new Set(mediaSent()[blobId] ?? []),
    setMediaSent(blobId, names) {
      const rest = Object.fromEntries(Object.entries(mediaSent()).filter(([id]) => id !== blobId));
      try {
        write(MEDIA_SENT_KEY, names && names.size > 0 ? { ...rest, [blobId]: [...names].sort() } : rest);
      } catch {
        // Not kept: the next push lists the server's files again instead.
      }
    },
  };
}

function browserStorage(): Storage | null {
  try {
    return typeof window === 'undefined' ? null : window.localStorage;
  } catch {
    return null;
  }
}

/** This browser's sync state. */
export const syncStore: SyncStore = createSyncStore(browserStorage());

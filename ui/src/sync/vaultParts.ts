// A vault as a manifest and parts (vault format v3), so that a push sends only what changed. The
// decks and their review logs are spread over 32 buckets by deck id; each non-empty bucket is one
// part, sealed on its own and named by a keyed hash of its content (crypto.ts partNamer), so an
// unchanged bucket keeps its name and is neither sent nor fetched again. The manifest is the
// vault's body on the server (bound to its version like every vault body): it names the parts of
// that version and carries the calendar list. A part is sealed for its vault and name, and opened
// only when its content hashes to that name, so the server can neither swap nor move one. Opening
// stays within the same bounds as one whole vault (limits.ts): the unpacked bytes of all parts
// together, then the counts of the assembled vault. Pure except for crypto; the engine fetches.
import { isRecord } from '../lib/json';
import { decrypt, inflate, partNamer, seal, type Place } from './crypto';
import { checkLimits, OPEN_LIMITS, type OpenLimits } from './limits';
import { VAULT_TYPE, type Base } from './local';
import { canonical, withScheduleSettings, withSeeds, type VaultState } from './merge';

/** The vault format that is a manifest of parts (v2 and v1 were one body). */
export const PARTS_VERSION = 3;
export const PART_TYPE = 'hearth-vault-part';
/** Buckets the decks are spread over: a change to one deck sends about 1/32 of the vault. */
export const BUCKETS = 32;
/** Most parts a manifest may name (the server refuses more). */
export const MAX_PARTS = 64;
const NAME = /^[A-Za-z0-9_-]{1,43}$/;

/** One bucket's decks (documents) and review logs, by deck id: JSON as it is sealed. */
export interface PartValue {
  type: typeof PART_TYPE;
  decks: Record<string, unknown>;
  reviews: Record<string, unknown>;
}

export interface NamedPart {
  name: string;
  value: PartValue;
}

/** The bucket of a deck id (FNV-1a): the same on every device. */
export function bucketOf(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i += 1) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % BUCKETS;
}

/** The non-empty buckets of a state's decks and review logs, in bucket order. */
export function partsOf(state: Pick<VaultState, 'decks' | 'reviews'>): PartValue[] {
  const buckets = new Map<number, PartValue>();
  const bucket = (id: string) => {
    const at = bucketOf(id);
    let part = buckets.get(at);
    if (!part) buckets.set(at, (part = { type: PART_TYPE, decks: {}, reviews: {} }));
    return part;
  };
  for (const [id, doc] of Object.entries(state.decks)) bucket(id).decks[id] = doc;
  for (const [id, reviews] of Object.entries(state.reviews)) bucket(id).reviews[id] = reviews;
  return [...buckets.entries()].sort(([a], [b]) => a - b).map(([, part]) => part);
}

/** The decks and review logs the base of the last merge holds (what that merge's parts held). */
export function baseContent(base: Base): Pick<VaultState, 'decks' | 'reviews'> {
  const reviews: VaultState['reviews'] = Object.fromEntries(
    Object.entries(base.newPerDay).map(([id, setting]) => [
      id,
      withSeeds(withScheduleSettings({ newPerDay: setting.value, setAt: setting.setAt, log: base.logs[id] ?? [] }, setting), base.seeds[id]),
    ]),
  );
  return { decks: base.decks, reviews };
}

/** The parts with their names under `keyText`. */
export async function nameParts(values: readonly PartValue[], keyText: string): Promise<NamedPart[]> {
  const name = await partNamer(keyText);
  return Promise.all(values.map(async (value) => ({ name: await name(canonical(value)), value })));
}

/** The manifest of a state whose parts are `names`. */
export const manifestOf = (state: VaultState, names: readonly string[]) => ({
  type: VAULT_TYPE,
  version: PARTS_VERSION,
  parts: [...names].sort(),
  calendars: state.calendars,
});

const DAMAGED = 'The vault holds data this version of the app does not read.';

/** The part names of a v3 manifest; null for a vault of one body (v1, v2). Throws when malformed. */
export function manifestParts(value: unknown): string[] | null {
  if (!isRecord(value) || value.version !== PARTS_VERSION) return null;
  const { parts } = value;
  if (!Array.isArray(parts) || parts.length > MAX_PARTS) throw new Error(DAMAGED);
  const names = parts.filter((name): name is string => typeof name === 'string' && NAME.test(name));
  if (names.length !== parts.length || new Set(names).size !== names.length) throw new Error(DAMAGED);
  return names;
}

const partPlace = (vaultId: string, name: string): Place => ({ kind: 'vaults', id: vaultId, version: 0, part: name });

export const sealPart = (part: NamedPart, keyText: string, vaultId: string) => seal(part.value, keyText, partPlace(vaultId, part.name));

const REFUSED = 'The server sent a part of this vault that was not written for it. It was refused, and nothing here was changed.';

export interface AssembleOptions {
  vaultId: string;
  keyText: string;
  /** Parts whose content this browser already has, by name. */
  known: ReadonlyMap<string, PartValue>;
  /** The sealed part from the server; null when it has none of that name (the vault moved on). */
  fetchPart: (name: string) => Promise<Uint8Array<ArrayBuffer> | null>;
  limits?: OpenLimits;
}

/** How many parts are fetched at once. */
const FETCHES = 4;

/**
 * The whole vault a v3 manifest stands for, as one v2-shaped value for parseVault: the known parts
 * taken as they are, the others fetched and opened. Null when the server no longer has one of them
 * (another device wrote since the manifest was read: read it again). Throws in words when a part
 * is not this vault's, is damaged, or the whole passes the bounds of opening.
 */
export async function assemble(manifest: Record<string, unknown>, names: readonly string[], options: AssembleOptions): Promise<Record<string, unknown> | null> {
  const limits = options.limits ?? OPEN_LIMITS;
  const name = await partNamer(options.keyText);
  let budget = limits.unpackedBytes;
  const open = async (partName: string, sealed: Uint8Array<ArrayBuffer>): Promise<PartValue> => {
    const plain = await decrypt(sealed, options.keyText, partPlace(options.vaultId, partName));
    if (!plain) throw new Error(REFUSED);
    const bytes = await inflate(plain, budget, 'vault');
    budget -= bytes.length;
    let value: unknown;
    try {
      value = JSON.parse(new TextDecoder().decode(bytes)) as unknown;
    } catch (error) {
      throw new Error('The stored data is damaged.', { cause: error });
    }
    checkLimits(value, 'vault', limits);
    if (!isRecord(value) || value.type !== PART_TYPE || !isRecord(value.decks) || !isRecord(value.reviews)) throw new Error(DAMAGED);
    if ((await name(canonical(value))) !== partName) throw new Error(REFUSED);
    return { type: PART_TYPE, decks: value.decks, reviews: value.reviews };
  };
  const values: PartValue[] = [];
  const wanted = names.filter((partName) => {
    const known = options.known.get(partName);
    if (known) values.push(known);
    return !known;
  });
  let missing = false;
  for (let at = 0; at < wanted.length && !missing; at += FETCHES) {
    const batch = await Promise.all(
      wanted.slice(at, at + FETCHES).map(async (partName) => {
        const sealed = await options.fetchPart(partName);
        return sealed ? open(partName, sealed) : null;
      }),
    );
    for (const value of batch) {
      if (value) values.push(value);
      else missing = true;
    }
  }
  if (missing) return null;
  const decks: Record<string, unknown> = {};
  const reviews: Record<string, unknown> = {};
  for (const value of values) {
    Object.assign(decks, value.decks);
    Object.assign(reviews, value.reviews);
  }
  const whole = { type: VAULT_TYPE, version: 2, decks, reviews, calendars: manifest.calendars };
  checkLimits(whole, 'vault', limits);
  return whole;
}

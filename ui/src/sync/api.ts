// The server's sync API (src/sync/api.rs): opaque blobs by id, always as
// application/octet-stream, only ciphertext. A create carries the write token this browser made
// (Authorization: Bearer) and, when the site wants it, the site's key (X-Sync-Key, asked for as
// lib/siteKey.ts says); a change or removal carries the token alone, and the version it starts
// from in If-Match. A create names the blob's id (X-Blob-Id, made here), so the body can be sealed
// for its place before it is sent; the same token again gets the blob it made, another token asking
// for a taken id a 409. A vault's write may carry parts (Sync-Parts names every part of the new
// version; the body frames the manifest and the parts sent), read one by one at .../parts/{name}.
// A vault or shared deck may hold sealed media files beside it (.../media lists their names,
// .../media/{name} reads or writes one with the token; media.ts). A 404 means the blob is gone
// (never made, revoked, or expired unread); 429 and
// 503 say in Retry-After how long to wait.
import * as v from 'valibot';
import { isRecord, parseJsonText } from '../lib/json';
import { parseOrNull, record } from '../lib/schema';
import { siteKey, withSiteKey, type KeyDeps } from '../lib/siteKey';
import { askSyncKey } from './keyQuestion';

export type BlobKind = 'vaults' | 'shares';

export class SyncApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    /** Seconds the server asked to wait before trying again (429, 503), else null. */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
    this.name = 'SyncApiError';
  }
}

export interface SyncInfo {
  maxBytes: number;
  /** Making a vault or a shared deck needs the site's key. */
  keyRequired: boolean;
  /** A vault nobody reads for this many days is removed (absent from older servers). */
  vaultExpiryDays?: number;
  /** A shared deck nobody reads for this many days is removed (absent from older servers). */
  shareExpiryDays?: number;
}

/** The site's one key (lib/siteKey.ts keeps it and holds the rule), asked for in sync's dialog (keyQuestion.ts). */
const keyDeps: KeyDeps = {
  readKey: () => siteKey.read(),
  writeKey: (key) => void siteKey.write(key),
  clearKey: () => siteKey.clear(),
  askKey: askSyncKey,
};

/**
 * Retry-After in seconds: a number of seconds, or an HTTP date (from `now`, epoch ms); null
 * when absent or unreadable. Never negative.
 */
export function retryAfterSeconds(header: string | null, now: number): number | null {
  const text = header?.trim() ?? '';
  if (text === '') return null;
  if (/^\d+$/.test(text)) return Number(text);
  // An HTTP date names its day and month ("Wed, 21 Oct 2015 07:28:00 GMT").
  const at = /[A-Za-z]/.test(text) ? Date.parse(text) : Number.NaN;
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

const BUSY = 'The server is busy.';

async function errorOf(response: Response): Promise<SyncApiError> {
  const busy = response.status === 503;
  let message = busy ? BUSY : `The server answered ${response.status}.`;
  try {
    const body = (await response.json()) as unknown;
    if (isRecord(body) && typeof body.error === 'string' && body.error.trim() !== '') message = body.error;
  } catch {
    // Not JSON (a proxy's page): the status says enough.
  }
  const waits = response.status === 429 || busy;
  return new SyncApiError(message, response.status, waits ? retryAfterSeconds(response.headers.get('Retry-After'), Date.now()) : null);
}

const PositiveDays = v.pipe(v.number(), v.integer(), v.minValue(1));

/** `GET /api/sync`'s answer: the two limits, and the expiry days when the server says them. */
export function parseSyncInfoValue(value: unknown): SyncInfo | undefined {
  if (!isRecord(value)) return undefined;
  const { maxBytes, keyRequired } = value;
  if (typeof maxBytes !== 'number' || typeof keyRequired !== 'boolean') return undefined;
  const info: SyncInfo = { maxBytes, keyRequired };
  const vaultDays = parseOrNull(PositiveDays, value.vaultExpiryDays);
  const shareDays = parseOrNull(PositiveDays, value.shareExpiryDays);
  if (vaultDays !== null) info.vaultExpiryDays = vaultDays;
  if (shareDays !== null) info.shareExpiryDays = shareDays;
  return info;
}

/**
 * What the page says about sync: the server writes `GET /api/sync`'s answer into index.html
 * (`null` with --no-sync), so the controls are there in the first render. undefined when the page
 * carries no such block (the dev server) or it is unreadable: then ask with syncInfo().
 */
export function embeddedSyncInfo(doc: Document): SyncInfo | null | undefined {
  return parseSyncInfo(doc.getElementById('hearth-sync')?.textContent);
}

/** The data block's text: `null` (sync off), the info, or undefined when absent or malformed. */
export function parseSyncInfo(text: string | null | undefined): SyncInfo | null | undefined {
  const value = parseJsonText(text);
  return value === null ? null : parseSyncInfoValue(value);
}

/** Whether the server syncs (null with --no-sync, which answers 404). */
export async function syncInfo(): Promise<SyncInfo | null> {
  const response = await fetch('/api/sync');
  if (response.status === 404) return null;
  if (!response.ok) throw await errorOf(response);
  const info = parseSyncInfoValue(await response.json());
  if (!info) throw new SyncApiError('The server sent an answer this page does not understand.', response.status);
  return info;
}

const OCTETS = 'application/octet-stream';

const CreatedSchema = record({
  id: v.pipe(v.string(), v.regex(/^[0-9a-f]{32}$/)),
  token: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]+$/)),
  version: v.pipe(v.number(), v.integer(), v.minValue(0)),
});

export interface Created {
  id: string;
  /** The token to keep: always the answer's. */
  token: string;
  version: number;
  /** 200: a create sent again with the same token, answered with the blob the first one made (not with this body). */
  replayed: boolean;
}

/**
 * Makes a blob with the write token `token` (made and kept by the caller before this is called),
 * under the id `id` (32 lowercase hex digits, made and kept with it) when given. Sent again with
 * the same token after a lost answer, it gets the same blob. Null when the site wants its key and
 * the visitor cancelled the prompt.
 */
export async function createBlob(kind: BlobKind, body: Uint8Array<ArrayBuffer>, token: string, id?: string): Promise<Created | null> {
  const outcome = await withSiteKey(async (key) => {
    const headers: Record<string, string> = { 'Content-Type': OCTETS, Authorization: `Bearer ${token}` };
    if (key) headers['X-Sync-Key'] = key;
    if (id) headers['X-Blob-Id'] = id;
    const response = await fetch(`/api/sync/${kind}`, { method: 'POST', headers, body });
    if (!response.ok) throw await errorOf(response);
    const created = parseOrNull(CreatedSchema, await response.json());
    if (!created) throw new SyncApiError('The server sent an answer this page does not understand.', response.status);
    return { ...created, replayed: response.status === 200 };
  }, keyDeps);
  if (outcome.kind === 'done') return outcome.value;
  if (outcome.kind === 'cancelled') return null;
  throw outcome.error;
}

const versionOf = (response: Response) => Number(/"v(\d+)"/.exec(response.headers.get('ETag') ?? '')?.[1] ?? 0);

export type ReadResult = { kind: 'unchanged' } | { kind: 'gone' } | { kind: 'blob'; version: number; body: Uint8Array<ArrayBuffer> };

/** The blob, 'unchanged' when it is still at `known` (a cheap 304), or 'gone' (404). */
export async function readBlob(kind: BlobKind, id: string, known?: number): Promise<ReadResult> {
  const headers: Record<string, string> = known ? { 'If-None-Match': `"v${known}"` } : {};
  const response = await fetch(`/api/sync/${kind}/${id}`, { headers, cache: 'no-store' });
  if (response.status === 304) return { kind: 'unchanged' };
  if (response.status === 404) return { kind: 'gone' };
  if (!response.ok) throw await errorOf(response);
  return { kind: 'blob', version: versionOf(response), body: new Uint8Array(await response.arrayBuffer()) };
}

export type WriteResult = { kind: 'written'; version: number } | { kind: 'conflict'; version: number } | { kind: 'gone' };

/** Replaces the blob if it is still at `base`; the token alone authorises it (no site key). */
export async function writeBlob(
  kind: BlobKind,
  id: string,
  token: string,
  base: number,
  body: Uint8Array<ArrayBuffer>,
  extra: Record<string, string> = {},
): Promise<WriteResult> {
  const response = await fetch(`/api/sync/${kind}/${id}`, {
    method: 'PUT',
    headers: { ...extra, 'Content-Type': OCTETS, Authorization: `Bearer ${token}`, 'If-Match': `"v${base}"` },
    body,
  });
  if (response.status === 409) return { kind: 'conflict', version: versionOf(response) };
  if (response.status === 404) return { kind: 'gone' };
  if (!response.ok) throw await errorOf(response);
  const answer = (await response.json()) as unknown;
  const version = isRecord(answer) && typeof answer.version === 'number' ? answer.version : null;
  if (version === null) throw new SyncApiError('The server sent an answer this page does not understand.', response.status);
  return { kind: 'written', version };
}

/** A part of a vault sent with its manifest: its name and its sealed bytes. */
export interface SentPart {
  name: string;
  body: Uint8Array<ArrayBuffer>;
}

/**
 * The body of a write with parts: the manifest, then each part sent, framed as the server reads
 * them (big-endian): u32 manifest length, manifest; per part u8 name length, name, u32 length, bytes.
 */
export function framePush(manifest: Uint8Array<ArrayBuffer>, parts: readonly SentPart[]): Uint8Array<ArrayBuffer> {
  const named = parts.map((part) => ({ name: new TextEncoder().encode(part.name), body: part.body }));
  const size = named.reduce((sum, part) => sum + 1 + part.name.length + 4 + part.body.length, 4 + manifest.length);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setUint32(0, manifest.length);
  out.set(manifest, 4);
  let at = 4 + manifest.length;
  for (const part of named) {
    view.setUint8(at, part.name.length);
    out.set(part.name, at + 1);
    at += 1 + part.name.length;
    view.setUint32(at, part.body.length);
    out.set(part.body, at + 4);
    at += 4 + part.body.length;
  }
  return out;
}

/**
 * Replaces a vault if it is still at `base` with `manifest`, naming in `names` every part the new
 * version holds and sending those the server does not have (`parts`); the server keeps the rest
 * and drops the parts no longer named, in the same step.
 */
export async function writeVaultParts(
  id: string,
  token: string,
  base: number,
  manifest: Uint8Array<ArrayBuffer>,
  names: readonly string[],
  parts: readonly SentPart[],
): Promise<WriteResult> {
  return writeBlob('vaults', id, token, base, framePush(manifest, parts), { 'Sync-Parts': names.join(',') });
}

/** A part of a vault; null when the server has no such part (or no such vault). */
export async function readPart(id: string, name: string): Promise<Uint8Array<ArrayBuffer> | null> {
  const response = await fetch(`/api/sync/vaults/${id}/parts/${name}`, { cache: 'no-store' });
  if (response.status === 404) return null;
  if (!response.ok) throw await errorOf(response);
  return new Uint8Array(await response.arrayBuffer());
}

/** Removes the blob; one already gone (404) counts as removed. */
export async function removeBlob(kind: BlobKind, id: string, token: string): Promise<void> {
  const response = await fetch(`/api/sync/${kind}/${id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${token}` } });
  if (!response.ok && response.status !== 404) throw await errorOf(response);
}

/**
 * The media files a vault or shared deck holds on the server (`GET .../media`): their names,
 * sorted; null when the blob is gone.
 */
export async function listMedia(kind: BlobKind, id: string): Promise<Set<string> | null> {
  const response = await fetch(`/api/sync/${kind}/${id}/media`, { cache: 'no-store' });
  if (response.status === 404) return null;
  if (!response.ok) throw await errorOf(response);
  const answer = (await response.json()) as unknown;
  const names = isRecord(answer) && Array.isArray(answer.names) ? answer.names : null;
  if (!names?.every((name): name is string => typeof name === 'string'))
    throw new SyncApiError('The server sent an answer this page does not understand.', response.status);
  return new Set(names);
}

/** One sealed media file; null when the server has no such file (or no such blob). */
export async function readMedia(kind: BlobKind, id: string, name: string): Promise<Uint8Array<ArrayBuffer> | null> {
  const response = await fetch(`/api/sync/${kind}/${id}/media/${name}`);
  if (response.status === 404) return null;
  if (!response.ok) throw await errorOf(response);
  return new Uint8Array(await response.arrayBuffer());
}

/**
 * Sends one sealed media file with the blob's write token: 'stored', 'held' (the server had it
 * already and did not take the body), or 'gone' (no such blob). A refusal (the media quota, the
 * storage) throws with the server's words.
 */
export async function writeMedia(kind: BlobKind, id: string, token: string, name: string, body: Uint8Array<ArrayBuffer>): Promise<'stored' | 'held' | 'gone'> {
  const response = await fetch(`/api/sync/${kind}/${id}/media/${name}`, {
    method: 'PUT',
    headers: { 'Content-Type': OCTETS, Authorization: `Bearer ${token}` },
    body,
  });
  if (response.status === 404) return 'gone';
  if (!response.ok) throw await errorOf(response);
  return response.status === 201 ? 'stored' : 'held';
}

/** Removes one media file with the blob's token; one already gone counts as removed. */
export async function removeMedia(kind: BlobKind, id: string, token: string, name: string): Promise<void> {
  const response = await fetch(`/api/sync/${kind}/${id}/media/${name}`, { method: 'DELETE', headers: { Authorization: `Bearer ${token}` } });
  if (!response.ok && response.status !== 404) throw await errorOf(response);
}

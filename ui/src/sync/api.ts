// The server's sync API (src/sync/api.rs): opaque blobs by id. Only ciphertext passes here; the
// write token goes in the Authorization header, the version a write starts from in If-Match.
import { isRecord, parseJsonText } from '../lib/json';
import { browserKeyDeps, withSiteKey } from '../lib/siteKey';

export type BlobKind = 'vaults' | 'shares';

export class SyncApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export interface SyncInfo {
  maxBytes: number;
  keyRequired: boolean;
}

/** Sync's words when the site wants its key (lib/siteKey.ts keeps it and holds the rule). */
export const SYNC_KEY_PROMPTS = {
  ask: 'This site needs its key to sync and share decks. Key:',
  refused: 'That key was not accepted. Key:',
};
const keyDeps = browserKeyDeps(SYNC_KEY_PROMPTS);

async function errorOf(response: Response): Promise<SyncApiError> {
  let message = `The server answered ${response.status}.`;
  try {
    const body = (await response.json()) as { error?: unknown };
    if (typeof body.error === 'string') message = body.error;
  } catch {
    // Not JSON (a proxy's page): the status says enough.
  }
  return new SyncApiError(message, response.status);
}

/** A write with the site's key, asked for as lib/siteKey.ts says when the server wants it. */
async function write(url: string, init: RequestInit): Promise<Response> {
  const outcome = await withSiteKey(async (key) => {
    const headers = new Headers(init.headers);
    if (key) headers.set('X-Publish-Key', key);
    const response = await fetch(url, { ...init, headers });
    if (response.status === 401) throw await errorOf(response);
    return response;
  }, keyDeps);
  if (outcome.kind === 'done') return outcome.value;
  if (outcome.kind === 'cancelled') throw new SyncApiError('This site needs its key to sync and share decks.', 401);
  throw outcome.error;
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
  if (value === null) return null;
  if (!isRecord(value)) return undefined;
  const { maxBytes, keyRequired } = value;
  return typeof maxBytes === 'number' && typeof keyRequired === 'boolean' ? { maxBytes, keyRequired } : undefined;
}

/** Whether the server syncs (null with --no-sync, which answers 404). */
export async function syncInfo(): Promise<SyncInfo | null> {
  const response = await fetch('/api/sync');
  if (response.status === 404) return null;
  if (!response.ok) throw await errorOf(response);
  return (await response.json()) as SyncInfo;
}

const octets = { 'Content-Type': 'application/octet-stream' };

export async function createBlob(kind: BlobKind, body: Uint8Array<ArrayBuffer>): Promise<{ id: string; token: string; version: number }> {
  const response = await write(`/api/sync/${kind}`, { method: 'POST', headers: octets, body });
  if (!response.ok) throw await errorOf(response);
  return (await response.json()) as { id: string; token: string; version: number };
}

const versionOf = (response: Response) => Number(/"v(\d+)"/.exec(response.headers.get('ETag') ?? '')?.[1] ?? 0);

export type ReadResult = { kind: 'unchanged' } | { kind: 'blob'; version: number; body: Uint8Array<ArrayBuffer> };

/** The blob, or 'unchanged' when it is still at `known` (a cheap 304). */
export async function readBlob(kind: BlobKind, id: string, known?: number): Promise<ReadResult> {
  const headers: Record<string, string> = known ? { 'If-None-Match': `"v${known}"` } : {};
  const response = await fetch(`/api/sync/${kind}/${id}`, { headers, cache: 'no-store' });
  if (response.status === 304) return { kind: 'unchanged' };
  if (!response.ok) throw await errorOf(response);
  return { kind: 'blob', version: versionOf(response), body: new Uint8Array(await response.arrayBuffer()) };
}

export type WriteResult = { kind: 'written'; version: number } | { kind: 'conflict'; version: number };

export async function writeBlob(kind: BlobKind, id: string, token: string, base: number, body: Uint8Array<ArrayBuffer>): Promise<WriteResult> {
  const response = await write(`/api/sync/${kind}/${id}`, {
    method: 'PUT',
    headers: { ...octets, Authorization: `Bearer ${token}`, 'If-Match': `"v${base}"` },
    body,
  });
  if (response.status === 409) return { kind: 'conflict', version: versionOf(response) };
  if (!response.ok) throw await errorOf(response);
  return { kind: 'written', version: ((await response.json()) as { version: number }).version };
}

export async function removeBlob(kind: BlobKind, id: string, token: string): Promise<void> {
  const response = await write(`/api/sync/${kind}/${id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${token}` } });
  if (!response.ok && response.status !== 404) throw await errorOf(response);
}

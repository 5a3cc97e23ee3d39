// Test support (imported by unit tests only): an in-memory stand-in for the server's sync API as
// the contract fixes it (creates with the browser's write token and, when sent, the id it chose
// in X-Blob-Id; the same blob again for the same token; 409 for an id another token took;
// octet-stream bodies only, the site's key on creates only, versions, 304, 409, 404 for what is
// gone; a vault's parts sent with Sync-Parts in a framed body, read at .../parts/{name}; media
// files listed, read, written and removed at .../media[/{name}] within a media quota), which
// records every request with what the browser had stored when it was sent, and answers as a test
// scripts it (a lost answer, a 429 with Retry-After). Also in-memory adapters standing in for the
// features' data, and a fresh browser (globals and adapters) for sync's modules to run in.
import { vi } from 'vitest';
import type { CalendarsAdapter, DecksAdapter, MediaAdapter, SyncAdapters, SyncDeck, SyncedReviews, SyncMediaFile } from '../lib/syncAdapters';
import { open } from './crypto';
import { assemble, manifestParts } from './vaultParts';

interface StoredBlob {
  kind: string;
  token: string;
  version: number;
  body: Uint8Array<ArrayBuffer>;
  /** A vault's parts by name (sent with `Sync-Parts`). */
  parts: Map<string, Uint8Array<ArrayBuffer>>;
  /** Its media files by name. */
  media: Map<string, Uint8Array<ArrayBuffer>>;
}

/** The manifest and parts of a framed write (api.ts framePush); null when the frame is malformed. */
export function unframe(body: Uint8Array<ArrayBuffer>): { manifest: Uint8Array<ArrayBuffer>; parts: Map<string, Uint8Array<ArrayBuffer>> } | null {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  if (body.length < 4) return null;
  const length = view.getUint32(0);
  if (4 + length > body.length) return null;
  const manifest = body.slice(4, 4 + length);
  const parts = new Map<string, Uint8Array<ArrayBuffer>>();
  let at = 4 + length;
  while (at < body.length) {
    const nameLength = view.getUint8(at);
    if (at + 1 + nameLength + 4 > body.length) return null;
    const name = new TextDecoder().decode(body.slice(at + 1, at + 1 + nameLength));
    const size = view.getUint32(at + 1 + nameLength);
    const start = at + 1 + nameLength + 4;
    if (start + size > body.length || parts.has(name)) return null;
    parts.set(name, body.slice(start, start + size));
    at = start + size;
  }
  return { manifest, parts };
}

export interface SeenRequest {
  method: string;
  path: string;
  headers: Headers;
  /** What `storageOf` held under its key when the request was sent. */
  stored: string | null;
  /** The bytes sent (empty for none). */
  body?: Uint8Array<ArrayBuffer>;
  /** A write with parts: its manifest and the parts it carried. */
  sent?: ReturnType<typeof unframe>;
}

/** What a script makes of a request: an answer, 'lose' (done on the server, the answer lost), or null (answer normally). */
export type Scripted = Response | 'lose' | null;

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });

export class FakeSyncServer {
  readonly blobs = new Map<string, StoredBlob>();
  readonly requests: SeenRequest[] = [];
  /** The site's key; null: creates need none. */
  key: string | null = null;
  /** Answers to give before the normal ones, first first. */
  readonly script: ((request: SeenRequest) => Scripted)[] = [];
  private next = 0;

  constructor(private readonly watch: () => string | null = () => null) {}

  readonly fetch = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const path = typeof input === 'string' ? input : input instanceof URL ? input.pathname : new URL(input.url).pathname;
    const body = init.body instanceof Uint8Array ? new Uint8Array(init.body) : new Uint8Array();
    const headers = new Headers(init.headers);
    const request: SeenRequest = { method: init.method ?? 'GET', path, headers, stored: this.watch(), body };
    if (headers.has('Sync-Parts')) request.sent = unframe(body);
    this.requests.push(request);
    const scripted = this.script.shift()?.(request) ?? null;
    if (scripted instanceof Response) return Promise.resolve(scripted);
    const answer = this.answer(request, body);
    return scripted === 'lose' ? Promise.reject(new TypeError('Failed to fetch')) : Promise.resolve(answer);
  };

  private answer({ method, path, headers }: SeenRequest, body: Uint8Array<ArrayBuffer>): Response {
    const [, , , kind, id] = path.split('/');
    const bearer = /^Bearer (.+)$/.exec(headers.get('Authorization') ?? '')?.[1] ?? null;
    if ((method === 'POST' || method === 'PUT') && headers.get('Content-Type') !== 'application/octet-stream') return json(415, { error: 'octet-stream only' });
    if (method === 'POST') {
      if (this.key !== null && headers.get('X-Sync-Key') !== this.key) return json(401, { error: 'this site needs its key' });
      if (!bearer || !/^[A-Za-z0-9_-]{43}$/.test(bearer)) return json(400, { error: 'a write token is needed' });
      for (const [known, blob] of this.blobs) {
        if (blob.token === bearer && blob.kind === kind) return json(200, { id: known, token: bearer, version: blob.version });
      }
      const asked = headers.get('X-Blob-Id');
      if (asked !== null && !/^[0-9a-f]{32}$/.test(asked)) return json(400, { error: 'a blob id is 32 lowercase hex digits' });
      if (asked !== null && this.blobs.has(asked)) return json(409, { error: 'that id is taken' });
      const made = asked ?? (this.next += 1).toString(16).padStart(32, '0');
      this.blobs.set(made, { kind: kind ?? '', token: bearer, version: 1, body, parts: new Map(), media: new Map() });
      return json(201, { id: made, token: bearer, version: 1 });
    }
    const blob = id ? this.blobs.get(id) : undefined;
    if (!id || !blob || blob.kind !== kind) return json(404, { error: 'not found' });
    if (path.split('/')[5] === 'media') return this.media(blob, method, path.split('/')[6], bearer, body);
    if (method === 'GET' && path.split('/')[6] !== undefined) {
      const part = blob.parts.get(path.split('/')[6] ?? '');
      return part ? new Response(part, { status: 200 }) : json(404, { error: 'this vault has no such part' });
    }
    if (method === 'GET') {
      if (headers.get('If-None-Match') === `"v${blob.version}"`) return new Response(null, { status: 304 });
      return new Response(blob.body, { status: 200, headers: { ETag: `"v${blob.version}"` } });
    }
    if (bearer !== blob.token) return json(403, { error: 'wrong token' });
    if (method === 'DELETE') {
      this.blobs.delete(id);
      return new Response(null, { status: 204 });
    }
    if (headers.get('If-Match') !== `"v${blob.version}"`) return json(409, { error: 'changed', version: blob.version }, { ETag: `"v${blob.version}"` });
    const named = headers.get('Sync-Parts');
    if (named === null) {
      blob.parts.clear();
      blob.body = body;
    } else {
      const framed = unframe(body);
      if (!framed) return json(400, { error: 'malformed frame' });
      const names = named === '' ? [] : named.split(',').map((name) => name.trim());
      const missing = names.find((name) => !framed.parts.has(name) && !blob.parts.has(name));
      if (missing !== undefined) return json(400, { error: `missing part ${missing}` });
      blob.parts = new Map(names.map((name) => [name, framed.parts.get(name) ?? blob.parts.get(name) ?? new Uint8Array()]));
      blob.body = framed.manifest;
    }
    blob.version += 1;
    return json(200, { version: blob.version });
  }

  /** Most bytes of media one blob may hold here (the server's --sync-media-quota). */
  mediaQuota = Number.POSITIVE_INFINITY;

  private media(blob: StoredBlob, method: string, name: string | undefined, bearer: string | null, body: Uint8Array<ArrayBuffer>): Response {
    if (name === undefined) return method === 'GET' ? json(200, { names: [...blob.media.keys()].sort() }) : json(405, { error: 'no' });
    if (method === 'GET') {
      const file = blob.media.get(name);
      return file ? new Response(file, { status: 200 }) : json(404, { error: 'no such media file' });
    }
    if (bearer !== blob.token) return json(403, { error: 'wrong token' });
    if (method === 'DELETE') {
      blob.media.delete(name);
      return new Response(null, { status: 204 });
    }
    if (blob.media.has(name)) return json(200, { stored: false });
    const used = [...blob.media.values()].reduce((sum, file) => sum + file.length, 0);
    if (used + body.length > this.mediaQuota)
      return json(507, { error: 'this vault’s pictures and sounds would take more than its media quota (--sync-media-quota)' });
    blob.media.set(name, body);
    return json(201, { stored: true });
  }

  /** The requests of one method. */
  sent(method: string): SeenRequest[] {
    return this.requests.filter((request) => request.method === method);
  }
}

/**
 * What the server holds for vault `id` as one value (a manifest's parts assembled), opened with
 * `key`: what any device reads of it.
 */
export async function readWholeVault(server: FakeSyncServer, id: string, key: string): Promise<Record<string, unknown>> {
  const blob = server.blobs.get(id);
  if (!blob) throw new Error(`no vault ${id}`);
  const manifest = (await open(blob.body, key, { kind: 'vaults', id, version: blob.version })) as Record<string, unknown>;
  const names = manifestParts(manifest);
  if (!names) return manifest;
  const whole = await assemble(manifest, names, {
    vaultId: id,
    keyText: key,
    known: new Map(),
    fetchPart: (name) => Promise.resolve(blob.parts.get(name) ?? null),
  });
  if (!whole) throw new Error('a part is missing');
  return whole;
}

/**
 * A fresh browser for sync's modules: the module registry reset, then the globals sync reads
 * stubbed (`storage` as localStorage, online, `server` answering fetch, a window), in-memory
 * adapters provided for the features' data, and the site key's question answered by `askKey`
 * (cancelled when absent). The sync modules a test imports after this bind this browser.
 */
export async function enterBrowser(
  storage: Storage,
  server: FakeSyncServer,
  askKey: (refused: boolean) => string | null = () => null,
): Promise<ReturnType<typeof memoryAdapters>> {
  vi.resetModules();
  const globals = {
    localStorage: storage,
    window: { localStorage: storage, addEventListener: () => undefined, removeEventListener: () => undefined, dispatchEvent: () => true },
    navigator: { onLine: true },
    fetch: server.fetch,
  };
  for (const [name, value] of Object.entries(globals)) vi.stubGlobal(name, value);
  const adapters = memoryAdapters();
  (await import('../lib/syncAdapters')).provideSyncAdapters(() => Promise.resolve(adapters));
  // The key dialog's place: questions are answered by `askKey`.
  (await import('./keyQuestion')).answerKeyQuestionsWith(askKey);
  return adapters;
}

/** SHA-256 as 64 hex digits. */
export async function sha256Hex(bytes: ArrayBuffer): Promise<string> {
  return Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Media files in memory by SHA-256; a deck's cards refer to them in `media: [{hash}]` (as the feature's cards do). */
export function memoryMedia(): MediaAdapter & { files: Map<string, SyncMediaFile>; fetcher: ((hash: string) => Promise<boolean>) | null } {
  const files = new Map<string, SyncMediaFile>();
  const media = {
    files,
    fetcher: null as ((hash: string) => Promise<boolean>) | null,
    referenced: (deck: SyncDeck) =>
      (Array.isArray(deck.cards) ? (deck.cards as unknown[]) : []).flatMap((card) => {
        const refs = (card as { media?: unknown }).media;
        return Array.isArray(refs) ? refs.map((ref) => (ref as { hash?: unknown }).hash).filter((hash): hash is string => typeof hash === 'string') : [];
      }),
    has: (hash: string) => Promise.resolve(files.has(hash)),
    get: (hash: string) => Promise.resolve(files.get(hash)),
    async put(bytes: ArrayBuffer, type: string) {
      const hash = await sha256Hex(bytes);
      files.set(hash, { bytes: bytes.slice(0), type });
      return hash;
    },
    setFetcher(fetch: ((hash: string) => Promise<boolean>) | null) {
      media.fetcher = fetch;
    },
  };
  return media;
}

/** Decks and calendars in memory, shaped as the features' adapters shape theirs. */
export function memoryAdapters(): SyncAdapters & { decksHere: Map<string, SyncDeck>; order: string[]; media: ReturnType<typeof memoryMedia> } {
  const decksHere = new Map<string, SyncDeck>();
  const reviews = new Map<string, SyncedReviews>();
  const state = { order: [] as string[], calendars: [] as readonly unknown[] };
  const parseDeck = (value: unknown, id: string): SyncDeck | null => {
    if (typeof value !== 'object' || value === null) return null;
    const deck = value as Record<string, unknown>;
    return typeof deck.name === 'string' && typeof deck.createdAt === 'string' ? { ...deck, id, name: deck.name, createdAt: deck.createdAt } : null;
  };
  const decks: DecksAdapter = {
    read: () => ({ order: [...state.order], decks: Object.fromEntries(decksHere), reviews: Object.fromEntries(reviews) }),
    readDeck: (id) => decksHere.get(id) ?? null,
    sharedDeck: (id) => decksHere.get(id) ?? null,
    parseDeck,
    parseReviews: (newPerDay, log, seeds, params, retention) => ({
      newPerDay: typeof newPerDay === 'number' ? newPerDay : 20,
      ...(Array.isArray(params) ? { params: params as number[] } : {}),
      ...(typeof retention === 'number' ? { retention } : {}),
      log: Array.isArray(log) ? (log as SyncedReviews['log']) : [],
      ...(typeof seeds === 'object' && seeds !== null ? { seeds: seeds as SyncedReviews['seeds'] } : {}),
    }),
    apply(change) {
      for (const [id, deck] of Object.entries(change.put)) decksHere.set(id, deck);
      for (const id of change.remove) {
        decksHere.delete(id);
        reviews.delete(id);
      }
      if (change.order) state.order = [...change.order];
      for (const [id, log] of Object.entries(change.reviews)) reviews.set(id, log);
    },
    addCopy(deck, now) {
      const id = `copy-${decksHere.size + 1}`;
      decksHere.set(id, { ...deck, id, createdAt: now.toISOString() });
      state.order = [id, ...state.order];
      return id;
    },
    preview: (deck) => ({ name: deck.name, author: '', description: '', sourceLang: 'en', targetLang: 'fr', cards: [] }),
    // A copy follows its share as a whole: the base is the deck's text without its save time.
    shareBase: (deck) => JSON.stringify({ ...deck, id: '', createdAt: '' }),
    planUpdate(copyId, incoming, base) {
      const copy = decksHere.get(copyId);
      if (!copy || typeof base !== 'string') return null;
      const next = JSON.stringify({ ...incoming, id: '', createdAt: '' });
      return { name: copy.name, added: [], changed: [], removed: [], kept: [], detailsChanged: next !== base, worthShowing: next !== base, base: next };
    },
    takeUpdate(copyId, incoming, base, now) {
      const plan = decks.planUpdate(copyId, incoming, base);
      if (plan?.worthShowing) decksHere.set(copyId, { ...incoming, id: copyId, createdAt: now.toISOString() });
      return plan;
    },
  };
  const calendars: CalendarsAdapter = {
    read: () => state.calendars,
    parse: (value) => (Array.isArray(value) ? (value as unknown[]) : []),
    write: (list) => {
      state.calendars = list;
    },
  };
  return {
    decks,
    calendars,
    media: memoryMedia(),
    decksHere,
    get order() {
      return state.order;
    },
    set order(value: string[]) {
      state.order = value;
    },
  };
}

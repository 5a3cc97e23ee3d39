// End-to-end encryption of vaults and shared decks (the excalidraw pattern): a random AES-GCM 256
// key made in this browser, carried only in the link's fragment (which browsers never send), and
// the server given nothing but IV + ciphertext of the gzipped JSON. The ciphertext is bound to its
// place (kind, id, version) through AES-GCM's additional data, so the server (or anyone holding the
// write token) cannot store one version's body as another's or move it to another blob; opening
// inflates in chunks and stops at a bound, so no body can fill the tab's memory.

const IV_BYTES = 12;

/** Bytes as base64url without padding (safe in a URL fragment). */
export function toBase64Url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  const padded = text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4);
  try {
    const binary = atob(padded);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return null;
  }
}

/** A fresh random key, as the text that goes into links. */
export async function newKey(): Promise<string> {
  const key = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, true, ['encrypt', 'decrypt']);
  return toBase64Url(new Uint8Array(await crypto.subtle.exportKey('raw', key)));
}

/** Bytes of a write token: 256 bits, as the server's own tokens were. */
export const TOKEN_BYTES = 32;

/**
 * A fresh write token (43 characters of base64url). The browser makes it, and keeps it before it
 * sends the create, so a create whose answer was lost can be sent again and get the same blob.
 */
export function newToken(): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(TOKEN_BYTES)));
}

async function importKey(text: string): Promise<CryptoKey> {
  const raw = fromBase64Url(text);
  if (raw?.length !== 32) throw new Error('The link’s key is damaged: copy the whole link again.');
  return crypto.subtle.importKey('raw', raw, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']);
}

/**
 * Where a sealed body belongs: its kind, its id, and the version it is stored as; or, for a part
 * of a vault (vaultParts.ts), the part's name, which stays the same across versions.
 */
export interface Place {
  kind: 'vaults' | 'shares';
  id: string;
  version: number;
  part?: string;
  /** A media file's name (media.ts): the same for every version. */
  media?: string;
}

/**
 * The additional data a body for `place` is sealed with: UTF-8 of
 * `hearth-sync/1\n{kind}\n{id}\nv{version}`, or `hearth-sync/1\n{kind}\n{id}\npart\n{name}` for a part
 * (`...\nmedia\n{name}` for a media file).
 */
export function placeLabel(place: Place): Uint8Array<ArrayBuffer> {
  const where = place.media !== undefined ? `media\n${place.media}` : place.part === undefined ? `v${place.version}` : `part\n${place.part}`;
  return new TextEncoder().encode(`hearth-sync/1\n${place.kind}\n${place.id}\n${where}`);
}

/** Characters of a part's name: 132 bits of its keyed hash, as base64url. */
export const PART_NAME_LENGTH = 22;

/**
 * The namer of a vault's parts: a keyed hash (HMAC-SHA-256, its key derived from the vault's key
 * with HKDF) of a part's canonical text, so the same content always has the same name (an
 * unchanged part is not sent again), the server cannot tell content from names, and a part whose
 * content does not hash to its name is refused.
 */
export const partNamer = (keyText: string) => keyedNamer(keyText, 'hearth-sync/1 part names');

/**
 * The namer of a vault's or shared deck's media files (media.ts): the same family, its own label,
 * over a file's SHA-256 (hex), so the same picture has the same name in a blob and the server
 * learns nothing of it.
 */
export const mediaNamer = (keyText: string) => keyedNamer(keyText, 'hearth-sync/1 media names');

async function keyedNamer(keyText: string, label: string): Promise<(text: string) => Promise<string>> {
  const raw = fromBase64Url(keyText);
  if (raw?.length !== 32) throw new Error('The link’s key is damaged: copy the whole link again.');
  const base = await crypto.subtle.importKey('raw', raw, 'HKDF', false, ['deriveKey']);
  const hmac = await crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(), info: new TextEncoder().encode(label) },
    base,
    { name: 'HMAC', hash: 'SHA-256', length: 256 },
    false,
    ['sign'],
  );
  return async (text) => toBase64Url(new Uint8Array(await crypto.subtle.sign('HMAC', hmac, new TextEncoder().encode(text)))).slice(0, PART_NAME_LENGTH);
}

/** A fresh blob id as the server makes them: 16 random bytes as 32 lowercase hex digits. */
export function newBlobId(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** Most bytes a body may inflate to (64 MiB): a larger one is refused, not opened. */
export const MAX_UNPACKED_BYTES = 64 * 1024 * 1024;

const mib = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;

async function gzip(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  const out = new Blob([bytes]).stream().pipeThrough(new CompressionStream('gzip'));
  return new Uint8Array(await new Response(out).arrayBuffer());
}

/**
 * The inflated bytes, read chunk by chunk; past `maxBytes` the stream is cancelled and `what`
 * ("vault", "shared deck") is named in the refusal.
 */
export async function inflate(bytes: Uint8Array<ArrayBuffer>, maxBytes: number, what: string): Promise<Uint8Array<ArrayBuffer>> {
  const reader = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip')).getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new Error(`This ${what} is larger than this app opens (${mib(maxBytes)} unpacked).`);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof Error && error.message.startsWith(`This ${what} is larger`)) throw error;
    throw new Error('The stored data is damaged.', { cause: error });
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** `value` as JSON, gzipped, then encrypted with a fresh IV (bound to `place` when given): IV ‖ ciphertext. */
export async function seal(value: unknown, keyText: string, place?: Place): Promise<Uint8Array<ArrayBuffer>> {
  return sealBytes(await gzip(new TextEncoder().encode(JSON.stringify(value))), keyText, place);
}

/** Bytes encrypted as they are (a picture or a sound: gzip would not make them smaller): IV ‖ ciphertext. */
export async function sealBytes(plain: Uint8Array<ArrayBuffer>, keyText: string, place?: Place): Promise<Uint8Array<ArrayBuffer>> {
  const key = await importKey(keyText);
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const params: AesGcmParams = place ? { name: 'AES-GCM', iv, additionalData: placeLabel(place) } : { name: 'AES-GCM', iv };
  const cipher = new Uint8Array(await crypto.subtle.encrypt(params, key, plain));
  const sealed = new Uint8Array(IV_BYTES + cipher.length);
  sealed.set(iv, 0);
  sealed.set(cipher, IV_BYTES);
  return sealed;
}

/**
 * The gzipped plain bytes of a sealed body, decrypted as bound to `place` (or as sealed without
 * additional data, as bodies were before binding, when `place` is null); null when the key or the
 * place does not match (AES-GCM cannot tell which), or the bytes were changed.
 */
export async function decrypt(sealed: Uint8Array<ArrayBuffer>, keyText: string, place: Place | null): Promise<Uint8Array<ArrayBuffer> | null> {
  const key = await importKey(keyText);
  if (sealed.length <= IV_BYTES) throw new Error('The stored data is damaged.');
  const iv = sealed.slice(0, IV_BYTES);
  const params: AesGcmParams = place ? { name: 'AES-GCM', iv, additionalData: placeLabel(place) } : { name: 'AES-GCM', iv };
  try {
    return new Uint8Array(await crypto.subtle.decrypt(params, key, sealed.slice(IV_BYTES)));
  } catch {
    return null;
  }
}

/** JSON out of gzipped bytes, inflating at most `maxBytes` first. */
export async function parseInflated(plain: Uint8Array<ArrayBuffer>, maxBytes: number, what: string): Promise<unknown> {
  const text = new TextDecoder().decode(await inflate(plain, maxBytes, what));
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new Error('The stored data is damaged.', { cause: error });
  }
}

/** The value `seal` sealed (for `place`, if it was); throws when the key or place is wrong or the bytes were changed. */
export async function open(sealed: Uint8Array<ArrayBuffer>, keyText: string, place: Place | null = null, maxBytes = MAX_UNPACKED_BYTES): Promise<unknown> {
  const plain = await decrypt(sealed, keyText, place);
  if (!plain) throw new Error('This link’s key does not open the stored data: copy the whole link again.');
  return parseInflated(plain, maxBytes, 'data');
}

// End-to-end encryption of vaults and shared decks (the excalidraw pattern): a random AES-GCM 256
// key made in this browser, carried only in the link's fragment (which browsers never send), and
// the server given nothing but IV + ciphertext of the gzipped JSON.

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

async function pipe(bytes: Uint8Array<ArrayBuffer>, stream: CompressionStream | DecompressionStream): Promise<Uint8Array<ArrayBuffer>> {
  const out = new Blob([bytes]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(out).arrayBuffer());
}

/** `value` as JSON, gzipped, then encrypted with a fresh IV: IV ‖ ciphertext. */
export async function seal(value: unknown, keyText: string): Promise<Uint8Array<ArrayBuffer>> {
  const key = await importKey(keyText);
  const plain = await pipe(new TextEncoder().encode(JSON.stringify(value)), new CompressionStream('gzip'));
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const cipher = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, plain));
  const sealed = new Uint8Array(IV_BYTES + cipher.length);
  sealed.set(iv, 0);
  sealed.set(cipher, IV_BYTES);
  return sealed;
}

/** The value `seal` sealed; throws when the key is wrong or the bytes were changed. */
export async function open(sealed: Uint8Array<ArrayBuffer>, keyText: string): Promise<unknown> {
  const key = await importKey(keyText);
  if (sealed.length <= IV_BYTES) throw new Error('The stored data is damaged.');
  let plain: ArrayBuffer;
  try {
    plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: sealed.slice(0, IV_BYTES) }, key, sealed.slice(IV_BYTES));
  } catch {
    throw new Error('This link’s key does not open the stored data: copy the whole link again.');
  }
  const json = new TextDecoder().decode(await pipe(new Uint8Array(plain), new DecompressionStream('gzip')));
  return JSON.parse(json) as unknown;
}

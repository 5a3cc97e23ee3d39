// The links that carry a vault or a shared deck. Everything secret is in the fragment (after #),
// which browsers never send to the server: the id, the AES key, and for a vault the write token.
// A browser does keep the fragment in its history, so the link the sync page gives for another
// device is a one-time handover (#h=…&k=…, handover.ts) that opens to nothing once used; a vault's
// own link (#v=…&k=…&t=…) still works.

export interface VaultLink {
  id: string;
  key: string;
  token: string;
}

export interface ShareLink {
  id: string;
  key: string;
}

/** A one-time handover of a vault: the sealed note's id and the key it is sealed with. */
export interface HandoverLink {
  id: string;
  key: string;
}

const ID = /^[0-9a-f]{32}$/;
const TEXT = /^[A-Za-z0-9_-]+$/;

function fields(hash: string): URLSearchParams {
  return new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
}

export const vaultUrl = (origin: string, link: VaultLink) => `${origin}/sync#v=${link.id}&k=${link.key}&t=${link.token}`;
export const shareUrl = (origin: string, link: ShareLink) => `${origin}/sync/deck#s=${link.id}&k=${link.key}`;
export const handoverUrl = (origin: string, link: HandoverLink) => `${origin}/sync#h=${link.id}&k=${link.key}`;

export function parseHandoverHash(hash: string): HandoverLink | null {
  const f = fields(hash);
  const [id, key] = [f.get('h') ?? '', f.get('k') ?? ''];
  return ID.test(id) && TEXT.test(key) ? { id, key } : null;
}

/** What a link opening the sync page brings: a vault's own link, a one-time handover, or nothing. */
export type ArrivingLink = { kind: 'vault'; link: VaultLink } | { kind: 'handover'; link: HandoverLink };

export function parseSyncHash(hash: string): ArrivingLink | null {
  const vault = parseVaultHash(hash);
  if (vault) return { kind: 'vault', link: vault };
  const handover = parseHandoverHash(hash);
  return handover ? { kind: 'handover', link: handover } : null;
}

export function parseVaultHash(hash: string): VaultLink | null {
  const f = fields(hash);
  const [id, key, token] = [f.get('v') ?? '', f.get('k') ?? '', f.get('t') ?? ''];
  return ID.test(id) && TEXT.test(key) && TEXT.test(token) ? { id, key, token } : null;
}

export function parseShareHash(hash: string): ShareLink | null {
  const f = fields(hash);
  const [id, key] = [f.get('s') ?? '', f.get('k') ?? ''];
  return ID.test(id) && TEXT.test(key) ? { id, key } : null;
}

/**
 * A sync link as pasted (a vault's own or a one-time handover): the whole link of this site
 * (`origin`), or its part after `#`. 'other' for a well-formed link of another site (its vault is
 * on that server), null for anything else.
 */
export function parseSyncLinkText(text: string, origin: string): ArrivingLink | 'other' | null {
  const trimmed = text.trim();
  if (trimmed.startsWith('#') || /^[vh]=/.test(trimmed)) return parseSyncHash(trimmed);
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return null;
  }
  const link = parseSyncHash(url.hash);
  if (!link || url.pathname !== '/sync') return null;
  return url.origin === origin ? link : 'other';
}

// The links that carry a vault or a shared deck. Everything secret is in the fragment (after #),
// which browsers never send to the server: the id, the AES key, and for a vault the write token.

export interface VaultLink {
  id: string;
  key: string;
  token: string;
}

export interface ShareLink {
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
 * A vault's link as pasted: the whole link of this site (`origin`), or its part after `#`. 'other'
 * for a well-formed link of another site (its vault is on that server), null for anything else.
 */
export function parseVaultLinkText(text: string, origin: string): VaultLink | 'other' | null {
  const trimmed = text.trim();
  if (trimmed.startsWith('#') || trimmed.startsWith('v=')) return parseVaultHash(trimmed);
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return null;
  }
  const link = parseVaultHash(url.hash);
  if (!link || url.pathname !== '/sync') return null;
  return url.origin === origin ? link : 'other';
}

import { describe, expect, it } from 'vitest';
import { parseShareHash, parseVaultHash, parseVaultLinkText, shareUrl, vaultUrl } from './links';

const id = '0123456789abcdef0123456789abcdef';

describe('links', () => {
  it('carry the id, key and token in the fragment only', () => {
    const url = new URL(vaultUrl('https://example.org', { id, key: 'k_-1', token: 'tok' }));
    expect(url.pathname).toBe('/sync');
    expect(url.search).toBe('');
    expect(parseVaultHash(url.hash)).toEqual({ id, key: 'k_-1', token: 'tok' });
    const share = new URL(shareUrl('https://example.org', { id, key: 'abc' }));
    expect(share.pathname).toBe('/sync/deck');
    expect(parseShareHash(share.hash)).toEqual({ id, key: 'abc' });
  });

  it('refuse damaged or partial fragments', () => {
    expect(parseVaultHash(`#v=${id}&k=abc`)).toBeNull();
    expect(parseVaultHash('#v=../x&k=a&t=b')).toBeNull();
    expect(parseShareHash(`#s=${id}`)).toBeNull();
    expect(parseShareHash('')).toBeNull();
  });

  it('read a pasted sync link of this site, whole or from its #, and tell one of another site apart', () => {
    const link = { id, key: 'k_-1', token: 'tok' };
    const url = vaultUrl('https://example.org', link);
    expect(parseVaultLinkText(`  ${url} `, 'https://example.org')).toEqual(link);
    expect(parseVaultLinkText(new URL(url).hash, 'https://example.org')).toEqual(link);
    expect(parseVaultLinkText(url, 'https://other.example')).toBe('other');
    for (const bad of ['', 'hello', `https://example.org/sync/deck#s=${id}&k=a`, `https://example.org/sync#v=${id}&k=a`]) {
      expect(parseVaultLinkText(bad, 'https://example.org')).toBeNull();
    }
  });
});

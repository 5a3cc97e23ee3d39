import { describe, expect, it } from 'vitest';
import { handoverUrl, parseShareHash, parseSyncHash, parseSyncLinkText, parseVaultHash, shareUrl, vaultUrl } from './links';

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

  it('tell a one-time link from a vault’s own', () => {
    const once = new URL(handoverUrl('https://example.org', { id, key: 'abc' }));
    expect(once.pathname).toBe('/sync');
    expect(parseSyncHash(once.hash)).toEqual({ kind: 'handover', link: { id, key: 'abc' } });
    expect(parseSyncHash(`#v=${id}&k=a&t=b`)).toEqual({ kind: 'vault', link: { id, key: 'a', token: 'b' } });
    expect(parseSyncHash(`#h=${id}`)).toBeNull();
  });

  it('read a pasted sync link of this site, whole or from its #, and tell one of another site apart', () => {
    const link = { id, key: 'k_-1', token: 'tok' };
    const url = vaultUrl('https://example.org', link);
    expect(parseSyncLinkText(`  ${url} `, 'https://example.org')).toEqual({ kind: 'vault', link });
    expect(parseSyncLinkText(new URL(url).hash, 'https://example.org')).toEqual({ kind: 'vault', link });
    expect(parseSyncLinkText(url, 'https://other.example')).toBe('other');
    expect(parseSyncLinkText(handoverUrl('https://example.org', { id, key: 'abc' }), 'https://example.org')).toEqual({
      kind: 'handover',
      link: { id, key: 'abc' },
    });
    for (const bad of ['', 'hello', `https://example.org/sync/deck#s=${id}&k=a`, `https://example.org/sync#v=${id}&k=a`]) {
      expect(parseSyncLinkText(bad, 'https://example.org')).toBeNull();
    }
  });
});

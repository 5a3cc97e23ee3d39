import { describe, expect, it } from 'vitest';
import { fromBase64Url, newKey, newToken, open, seal, toBase64Url } from './crypto';

describe('sealing', () => {
  it('opens what it sealed, and the ciphertext holds no plain text', async () => {
    const key = await newKey();
    const value = { decks: [{ name: 'Irregular verbs', cards: [{ front: 'être', back: 'to be' }] }] };
    const sealed = await seal(value, key);
    expect(await open(sealed, key)).toEqual(value);
    const asText = new TextDecoder('latin1').decode(sealed);
    expect(asText).not.toContain('Irregular');
    expect(asText).not.toContain('verbs');
  });

  it('a fresh IV each time: the same value seals differently', async () => {
    const key = await newKey();
    const a = await seal({ x: 1 }, key);
    const b = await seal({ x: 1 }, key);
    expect(toBase64Url(a)).not.toEqual(toBase64Url(b));
  });

  it('refuses another key and changed bytes', async () => {
    const sealed = await seal({ x: 1 }, await newKey());
    await expect(open(sealed, await newKey())).rejects.toThrow(/does not open/);
    const key = await newKey();
    const good = await seal({ x: 1 }, key);
    good[20] = (good[20] ?? 0) ^ 1;
    await expect(open(good, key)).rejects.toThrow(/does not open/);
    await expect(open(good, 'short')).rejects.toThrow(/damaged/);
  });

  it('base64url round-trips every byte', () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(fromBase64Url(toBase64Url(bytes))).toEqual(bytes);
    expect(fromBase64Url('not base64!')).toBeNull();
  });
});

describe('write tokens', () => {
  it('are 32 random bytes as 43 characters of base64url, new each time', () => {
    const tokens = Array.from({ length: 50 }, newToken);
    for (const token of tokens) {
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(fromBase64Url(token)).toHaveLength(32);
    }
    expect(new Set(tokens).size).toBe(tokens.length);
  });
});

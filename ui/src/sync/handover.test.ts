// One-time links for another device, against the in-memory server: the note holds the vault's
// link sealed with the link's own key, the device that opens it gets the vault and removes the
// note (the link then opens nothing), a second link replaces the first, and a note that is not one
// is refused in words.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryStorage } from '../lib/memoryStorage';
import { enterBrowser, FakeSyncServer } from './fakeServer';

type Handover = typeof import('./handover');
type Engine = typeof import('./engine');

let server: FakeSyncServer;

/** A browser with its own storage and modules. */
async function browser(): Promise<{ handover: Handover; engine: Engine }> {
  await enterBrowser(new MemoryStorage(), server);
  return { handover: await import('./handover'), engine: await import('./engine') };
}

beforeEach(() => {
  server = new FakeSyncServer();
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('a one-time link', () => {
  it('hands the vault to the device that opens it, once; the server never sees the vault’s key', async () => {
    const a = await browser();
    const vault = await a.engine.createVault();
    if (!vault) throw new Error('no vault');
    const link = await a.handover.makeHandover(vault);
    if (!link) throw new Error('no link');
    expect(link.key).not.toBe(vault.key);
    const note = server.blobs.get(link.id);
    expect(note?.kind).toBe('shares');
    expect(Buffer.from(note?.body ?? []).toString('latin1')).not.toContain(vault.key);

    const b = await browser();
    await expect(b.handover.redeemHandover(link)).resolves.toEqual({ id: vault.id, key: vault.key, token: vault.token });
    // Read once, removed: what the other browser's history keeps opens nothing.
    expect(server.blobs.has(link.id)).toBe(false);
    await expect(b.handover.redeemHandover(link)).resolves.toBeNull();
  });

  it('replaces the link made before, which then opens nothing', async () => {
    const a = await browser();
    const vault = await a.engine.createVault();
    if (!vault) throw new Error('no vault');
    const first = await a.handover.makeHandover(vault);
    const second = await a.handover.makeHandover(vault);
    if (!first || !second) throw new Error('no link');
    expect(second.id).not.toBe(first.id);
    expect(server.blobs.has(first.id)).toBe(false);
    await a.handover.dropHandover();
    expect(server.blobs.has(second.id)).toBe(false);
  });

  it('refuses a note sealed with another key, in words', async () => {
    const a = await browser();
    const vault = await a.engine.createVault();
    if (!vault) throw new Error('no vault');
    const link = await a.handover.makeHandover(vault);
    if (!link) throw new Error('no link');
    const b = await browser();
    await expect(b.handover.redeemHandover({ ...link, key: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' })).rejects.toThrow();
    expect(server.blobs.has(link.id)).toBe(true);
  });
});

// Smaller pushes, end to end against the in-memory server: two browsers on one vault, each with
// its own storage and engine. A push sends the manifest and only the parts that changed; a pull
// fetches only the parts it does not hold; a vault of one body (v2) is written in parts at its
// next change; a server that lost a part this browser thought it held gets every part again.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryStorage } from '../lib/memoryStorage';
import { enterBrowser, FakeSyncServer, type memoryAdapters, readWholeVault } from './fakeServer';

type Engine = typeof import('./engine');

interface Device {
  engine: Engine;
  adapters: ReturnType<typeof memoryAdapters>;
}

let server: FakeSyncServer;

/** Text that does not compress away, the same every run. */
const words = (seed: number, count: number) => Array.from({ length: count }, (_, i) => ((seed * 7919 + i * 104_729) % 1_000_003).toString(36)).join(' ');

const deck = (id: string, name: string, at: number) => ({
  id,
  name,
  createdAt: new Date(at).toISOString(),
  cards: Array.from({ length: 10 }, (_, i) => ({ id: `${id}-${i}`, front: words(id.length * 1_000 + i, 8), back: words(at + i, 8) })),
});

/** A browser with its own storage, adapters and engine, all talking to `server`. */
async function device(decks: number): Promise<Device> {
  const adapters = await enterBrowser(new MemoryStorage(), server);
  const put = Object.fromEntries(Array.from({ length: decks }, (_, i) => [`d${i}`, deck(`d${i}`, `Deck ${i}`, 1_000 + i)]));
  adapters.decks.apply({ put, remove: [], order: Object.keys(put), reviews: {} });
  return { engine: await import('./engine'), adapters };
}

/** Renames deck `id` on `on`, as a save would. */
function rename(on: Device, id: string, name: string, at: number) {
  on.adapters.decks.apply({ put: { [id]: deck(id, name, at) }, remove: [], order: null, reviews: {} });
}

const puts = () => server.sent('PUT');
const partReads = () => server.sent('GET').filter((request) => request.path.includes('/parts/'));

beforeEach(() => {
  server = new FakeSyncServer();
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('smaller pushes', () => {
  it('sends only the changed part, and another browser fetches only that part', async () => {
    const a = await device(100);
    const vault = await a.engine.createVault();
    if (!vault) throw new Error('no vault');
    const blob = server.blobs.get(vault.id);
    const whole = blob?.body.length ?? 0;

    // The first change writes the vault in parts: all of them, since the server holds none.
    rename(a, 'd1', 'Verbs', 5_000);
    await a.engine.syncNow();
    expect(a.engine.currentStatus().error).toBeNull();
    const first = puts().at(-1);
    const names = first?.headers.get('Sync-Parts')?.split(',') ?? [];
    expect(names.length).toBeGreaterThan(16);
    expect(blob?.parts.size).toBe(names.length);

    // The next change sends the manifest and one part, naming all of them.
    rename(a, 'd2', 'Nouns', 6_000);
    await a.engine.syncNow();
    const second = puts().at(-1);
    expect(second?.headers.get('Sync-Parts')?.split(',')).toHaveLength(names.length);
    expect(second?.sent?.parts.size).toBe(1);
    const bytes = second?.body?.length ?? 0;
    expect(bytes).toBeLessThan(whole / 4);

    // A browser that joins fetches every part once.
    const b = await device(0);
    await b.engine.joinVault({ id: vault.id, key: vault.key, token: vault.token });
    expect(b.engine.currentStatus().error).toBeNull();
    expect(b.adapters.decksHere.get('d2')?.name).toBe('Nouns');
    expect(partReads()).toHaveLength(names.length);

    // After one more change there, it fetches one part.
    rename(a, 'd3', 'Colours', 7_000);
    await a.engine.syncNow();
    const before = partReads().length;
    await b.engine.syncNow();
    expect(b.adapters.decksHere.get('d3')?.name).toBe('Colours');
    expect(partReads().length - before).toBe(1);
    // And its own change goes back as one part, which the first browser reads.
    rename(b, 'd4', 'Food', 8_000);
    await b.engine.syncNow();
    expect(puts().at(-1)?.sent?.parts.size).toBe(1);
    await a.engine.syncNow();
    expect(a.adapters.decksHere.get('d4')?.name).toBe('Food');
    const stored = (await readWholeVault(server, vault.id, vault.key)) as { decks: Record<string, unknown> };
    expect(Object.keys(stored.decks)).toHaveLength(100);
  });

  it('a server that lost a part this browser thought it held gets every part again, in one more request', async () => {
    const a = await device(40);
    const vault = await a.engine.createVault();
    if (!vault) throw new Error('no vault');
    rename(a, 'd1', 'Verbs', 5_000);
    await a.engine.syncNow();
    const blob = server.blobs.get(vault.id);
    const [lost] = blob?.parts.keys() ?? [];
    if (lost === undefined) throw new Error('no parts');
    blob?.parts.delete(lost);
    rename(a, 'd2', 'Nouns', 6_000);
    await a.engine.syncNow();
    expect(a.engine.currentStatus().error).toBeNull();
    const [refused, resent] = puts().slice(-2);
    expect(refused?.sent?.parts.size).toBe(1);
    expect(resent?.sent?.parts.size).toBe(resent?.headers.get('Sync-Parts')?.split(',').length);
    const stored = (await readWholeVault(server, vault.id, vault.key)) as { decks: Record<string, { meta: Record<string, { v: unknown }> }> };
    expect(Object.keys(stored.decks)).toHaveLength(40);
  });
});

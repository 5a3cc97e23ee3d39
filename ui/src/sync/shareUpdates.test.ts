// Shares that follow the deck, against the in-memory server: a saved change replaces the shared
// copy (nothing is sent for a save that changed nothing), a write from another tab (409) is
// retried from the server's version, a link taken down (404) is reported, a 429 is waited out;
// a copy remembers its link, finds a newer version with a cheap If-None-Match, and takes it.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryStorage } from '../lib/memoryStorage';
import { enterBrowser, FakeSyncServer, type memoryAdapters } from './fakeServer';

type Updates = typeof import('./shareUpdates');
type Shares = typeof import('./shares');

let storage: MemoryStorage;
let server: FakeSyncServer;
let adapters: ReturnType<typeof memoryAdapters>;
let updates: Updates;
let shares: Shares;

const deck = (name: string, at: number, cards: string[] = []) => ({ id: 'a', name, createdAt: new Date(at).toISOString(), cards });
const save = (name: string, at: number, cards: string[] = []) =>
  adapters.decks.apply({ put: { a: deck(name, at, cards) }, remove: [], order: ['a'], reviews: {} });

beforeEach(async () => {
  storage = new MemoryStorage();
  server = new FakeSyncServer();
  adapters = await enterBrowser(storage, server);
  save('Verbs', 1_000, ['eat']);
  updates = await import('./shareUpdates');
  shares = await import('./shares');
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

async function makeShare() {
  const made = await shares.shareDeck('a');
  if (!made) throw new Error('no share');
  await updates.noteShareMade('a');
  return made;
}

describe('the sharer’s link follows the deck', () => {
  it('sends a saved change with the version it starts from, and nothing for a save that changed nothing', async () => {
    const made = await makeShare();
    save('Verbs', 2_000, ['eat']);
    await updates.updateSharedCopy('a');
    expect(server.sent('PUT')).toHaveLength(0);
    expect(updates.followState('a').phase).toBe('current');

    save('Verbs', 3_000, ['eat', 'drink']);
    await updates.updateSharedCopy('a');
    const [put] = server.sent('PUT');
    expect(put?.headers.get('If-Match')).toBe('"v1"');
    expect(server.blobs.get(made.id)?.version).toBe(2);
    expect(updates.followState('a').phase).toBe('current');
    // The link now opens on the saved change.
    const opened = await shares.openShare(made);
    expect(opened?.deck.cards).toEqual(['eat', 'drink']);
    expect(opened?.version).toBe(2);
  });

  it('starts again from the server’s version after another tab wrote (409)', async () => {
    const made = await makeShare();
    save('Verbs', 2_000, ['eat', 'drink']);
    await updates.updateSharedCopy('a');
    const blob = server.blobs.get(made.id);
    if (!blob) throw new Error('no blob');
    blob.version = 5;
    save('Verbs', 3_000, ['eat', 'drink', 'see']);
    await updates.updateSharedCopy('a');
    expect(server.sent('PUT').map((request) => request.headers.get('If-Match'))).toEqual(['"v1"', '"v2"', '"v5"']);
    expect(blob.version).toBe(6);
    expect(updates.followState('a').phase).toBe('current');
  });

  it('says a link the server no longer has is gone (404)', async () => {
    const made = await makeShare();
    server.blobs.delete(made.id);
    save('Verbs', 3_000, ['eat', 'drink']);
    await updates.updateSharedCopy('a');
    expect(updates.followState('a').phase).toBe('gone');
  });

  it('waits as long as a 429 says, then sends', async () => {
    vi.useFakeTimers();
    const made = await makeShare();
    save('Verbs', 2_000, ['eat', 'drink']);
    await updates.updateSharedCopy('a');
    server.script.push(() => new Response('{"error":"Too many requests."}', { status: 429, headers: { 'Retry-After': '30' } }));
    save('Verbs', 3_000, ['eat', 'drink', 'see']);
    await updates.updateSharedCopy('a');
    const state = updates.followState('a');
    expect(state.phase).toBe('outdated');
    expect(state.phase === 'outdated' && state.retryAt !== null).toBe(true);
    // Asked again before the time is up: nothing is sent.
    await updates.updateSharedCopy('a');
    expect(server.sent('PUT')).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(30_000);
    // Sealing runs outside the fake clock: wait for it in real time.
    vi.useRealTimers();
    await vi.waitFor(() => expect(server.sent('PUT')).toHaveLength(3));
    expect(server.blobs.get(made.id)?.version).toBe(3);
    expect(updates.followState('a').phase).toBe('current');
  });
});

describe('a copy follows its link', () => {
  it('remembers where it came from, asks with If-None-Match, and takes a newer version', async () => {
    const made = await makeShare();
    const opened = await shares.openShare(made);
    if (!opened) throw new Error('not opened');
    const copyId = await updates.addFollowingCopy(made, opened, new Date(5_000));
    expect(updates.isSharedCopy(copyId)).toBe(true);
    expect(updates.isSharedCopy('a')).toBe(false);

    await updates.checkCopy(copyId);
    expect(server.sent('GET').at(-1)?.headers.get('If-None-Match')).toBe('"v1"');
    expect(updates.copyState(copyId).phase).toBe('current');

    save('Verbs', 6_000, ['eat', 'drink']);
    await updates.updateSharedCopy('a');
    await updates.checkCopy(copyId);
    expect(updates.copyState(copyId).phase).toBe('available');
    const taken = await updates.takeCopyUpdate(copyId, new Date(7_000));
    expect(taken?.worthShowing).toBe(true);
    expect(adapters.decksHere.get(copyId)?.cards).toEqual(['eat', 'drink']);
    expect(updates.copyState(copyId).phase).toBe('current');
    await updates.checkCopy(copyId);
    expect(server.sent('GET').at(-1)?.headers.get('If-None-Match')).toBe('"v2"');
    expect(updates.copyState(copyId).phase).toBe('current');
  });

  it('says when the link was taken down, and forgets a copy that was deleted', async () => {
    const made = await makeShare();
    const opened = await shares.openShare(made);
    if (!opened) throw new Error('not opened');
    const copyId = await updates.addFollowingCopy(made, opened);
    await shares.revokeShare('a');
    await updates.checkCopy(copyId);
    expect(updates.copyState(copyId).phase).toBe('gone');
    adapters.decks.apply({ put: {}, remove: [copyId], order: ['a'], reviews: {} });
    await updates.checkCopy(copyId);
    expect(updates.isSharedCopy(copyId)).toBe(false);
  });
});

// Sync at scale (issue 17): the vault of 300 decks of 20 cards with 10,000 review marks in all,
// built from storage the way the browser builds it (through the features' adapters), then gzipped and sealed (AES-GCM) as it is
// uploaded; figures: its JSON size, its uploaded size, the time to build, merge and seal it, and
// the real server accepting it under the default --max-vault-size.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../support/server';
import { deckRecord } from '../flashcards-support/seed';
import { MemoryStorage } from '../../src/lib/memoryStorage';
import { emptyReviews, recordMark, toStored } from '../../src/flashcards/srs/reviewLog';
import { newKey, newToken, seal } from '../../src/sync/crypto';
import { emptyBase, localState, readLocal, toVault } from '../../src/sync/local';
import { createDecksSyncAdapter } from '../../src/flashcards/syncAdapter';
import { createCalendarsSyncAdapter } from '../../src/calendars/syncAdapter';
import { merge } from '../../src/sync/merge';

const DECKS = 300;
const CARDS = 20;
const REVIEWS = 10_000;
const DAY = 86_400_000;

function fill(storage: Storage, now: number) {
  const ids: string[] = [];
  for (let n = 0; n < DECKS; n += 1) {
    const id = `deck-${n}`;
    ids.push(id);
    const cards = Array.from({ length: CARDS }, (_, i) => ({ id: `${id}-card-${i}`, front: `front ${n}.${i}`, back: `back ${n}.${i}` }));
    storage.setItem(
      `decks:${id}`,
      JSON.stringify(
        deckRecord({ id, name: `Deck ${n}`, author: 'Bench', description: `Deck number ${n}.`, createdAt: new Date(now - n * 60_000).toISOString(), cards }),
      ),
    );
    let log = emptyReviews();
    // 10,000 in all: the first decks get one mark more.
    const marks = Math.floor(REVIEWS / DECKS) + (n < REVIEWS % DECKS ? 1 : 0);
    for (let i = 0; i < marks; i += 1) {
      log = recordMark(log, `${id}-card-${i % CARDS}`, i % 5 === 4 ? 'again' : 'good', now - 60 * DAY + Math.floor((i / marks) * 60 * DAY));
    }
    storage.setItem(`reviews:${id}`, JSON.stringify(toStored(log)));
  }
  storage.setItem('decks:index', JSON.stringify(ids));
}

describe('sync: vault size and cost at scale', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('300 decks with 10,000 reviews', async () => {
    const now = Date.UTC(2026, 10, 1);
    const storage = new MemoryStorage();
    fill(storage, now);
    const stored = [...storage.data.values()].reduce((sum, value) => sum + value.length, 0);

    let started = performance.now();
    const state = localState(readLocal({ decks: createDecksSyncAdapter(storage), calendars: createCalendarsSyncAdapter(storage) }), emptyBase(), now);
    const buildMs = performance.now() - started;
    started = performance.now();
    merge(state, state);
    const mergeMs = performance.now() - started;
    const json = JSON.stringify(toVault(state)).length;
    const key = await newKey();
    started = performance.now();
    const sealed = await seal(toVault(state), key);
    const sealMs = performance.now() - started;
    const marks = Object.values(state.reviews).reduce((sum, reviews) => sum + reviews.log.length, 0);
    expect(marks).toBe(REVIEWS);

    const response = await fetch(`${server.url}/api/sync/vaults`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/octet-stream', Authorization: `Bearer ${newToken()}` },
      body: sealed,
    });
    expect(response.status).toBe(201);

    const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
    console.log(
      [
        `sync vault, ${DECKS} decks × ${CARDS} cards, ${marks} review marks:`,
        `  in localStorage ${kib(stored)}; vault JSON ${kib(json)}; uploaded (gzip + AES-GCM) ${kib(sealed.length)}`,
        `  build from storage ${buildMs.toFixed(0)} ms, merge with itself ${mergeMs.toFixed(0)} ms, gzip + seal ${sealMs.toFixed(0)} ms (Node ${process.version})`,
      ].join('\n'),
    );
  });
});

// Sync at scale (issues 17 and 27): the vault of 300 decks of ~33 cards (10,000 cards) with 10,000
// review marks in all, built from storage the way the browser builds it (through the features'
// adapters), then gzipped and sealed (AES-GCM) as it is uploaded; figures: its JSON size, its
// uploaded size, the time to build it, to merge it with another device's copy where every deck
// had a card edited concurrently and a card added, to tell one local save apart from the base,
// and to seal it, and the real server accepting it under the default --max-vault-size. Then the
// bytes of each push in parts (vaultParts.ts) to the real server: the first (every part), one card
// edited, ten reviews in one deck, and ten reviews spread over ten decks; and the bytes synced for
// one new picture on one card: the push of its deck's part, the list of the vault's files, and the
// sealed file (media.ts), each sent to the real server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../support/server';
import { deckRecord } from '../flashcards-support/seed';
import { MemoryStorage } from '../../src/lib/memoryStorage';
import { emptyReviews, recordMark, toStored } from '../../src/flashcards/srs/reviewLog';
import { newKey, newToken, seal } from '../../src/sync/crypto';
import { createClock, type ClockState } from '../../src/sync/hlc';
import { baseOf, emptyBase, localState, readLocal, toVault } from '../../src/sync/local';
import { packText } from '../../src/sync/packedText';
import { editDeck, renderDeck } from '../../src/sync/deckDoc';
import { createDecksSyncAdapter } from '../../src/flashcards/syncAdapter';
import { createCalendarsSyncAdapter } from '../../src/calendars/syncAdapter';
import { merge, type DeckDoc, type VaultState } from '../../src/sync/merge';
import { framePush } from '../../src/sync/api';
import { manifestOf, nameParts, partsOf, sealPart } from '../../src/sync/vaultParts';
import { mediaName, sealMedia } from '../../src/sync/media';

const DECKS = 300;
const CARDS_IN_ALL = 10_000;
/** 10,000 in all: the first decks get one card more. */
const cardsOf = (n: number) => Math.floor(CARDS_IN_ALL / DECKS) + (n < CARDS_IN_ALL % DECKS ? 1 : 0);
const REVIEWS = 10_000;
const DAY = 86_400_000;

function fill(storage: Storage, now: number) {
  const ids: string[] = [];
  for (let n = 0; n < DECKS; n += 1) {
    const id = `deck-${n}`;
    ids.push(id);
    const cards = Array.from({ length: cardsOf(n) }, (_, i) => ({ id: `${id}-card-${i}`, front: `front ${n}.${i}`, back: `back ${n}.${i}` }));
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
      log = recordMark(log, `${id}-card-${i % cardsOf(n)}`, i % 5 === 4 ? 'again' : 'good', now - 60 * DAY + Math.floor((i / marks) * 60 * DAY));
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

    const adapters = { decks: createDecksSyncAdapter(storage), calendars: createCalendarsSyncAdapter(storage) };
    const clockOf = (device: string, at: number) => {
      let kept: ClockState | null = null;
      return createClock(
        { clock: () => kept, setClock: (next) => void (kept = next) },
        () => at,
        () => (device === 'a' ? 0.1 : 0.9),
      );
    };
    let started = performance.now();
    const state = localState(readLocal(adapters), emptyBase(), clockOf('a', now), adapters.decks);
    const buildMs = performance.now() - started;
    // Another device's copy: in every deck the first card's back edited and a card added, concurrently.
    const other = clockOf('b', now + 1000);
    const otherDecks: Record<string, DeckDoc> = {};
    for (const [id, doc] of Object.entries(state.decks)) {
      const deck = renderDeck(id, doc);
      if (!deck || !Array.isArray(deck.cards)) continue;
      const cards = (deck.cards as Record<string, unknown>[]).map((card, i) => (i === 0 ? { ...card, back: 'changed elsewhere' } : card));
      otherDecks[id] = editDeck({ ...deck, cards: [...cards, { id: `${id}-new`, front: 'new', back: 'card' }] }, doc, deck, () => other.now(), 'b');
    }
    const remote: VaultState = { ...state, decks: otherDecks };
    started = performance.now();
    const merged = merge(remote, state);
    const mergeMs = performance.now() - started;
    started = performance.now();
    merge(merged, merged);
    const selfMs = performance.now() - started;
    const cardCount = Object.values(merged.decks).reduce((sum, doc) => sum + Object.keys(doc.cards).length, 0);
    expect(cardCount).toBe(CARDS_IN_ALL + DECKS);
    // One deck saved here since the last sync: only it is compared with the base.
    const base = baseOf(state);
    const deck = storage.getItem('decks:deck-7') ?? '{}';
    storage.setItem(
      'decks:deck-7',
      deck.replace('"back 7.3"', '"back seven"').replace(/"createdAt":"[^"]*"/, `"createdAt":"${new Date(now + 5).toISOString()}"`),
    );
    started = performance.now();
    const edited = localState(readLocal(adapters), base, clockOf('a', now + 10), adapters.decks);
    const diffMs = performance.now() - started;
    expect(JSON.stringify(edited.decks['deck-7'])).toContain('back seven');
    const baseChars = JSON.stringify(base).length;
    const storedBaseChars = packText(JSON.stringify(base)).length;
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

    const created = (await response.json()) as { id: string; token: string };
    const { token } = created;

    // Pushes in parts: each sends the manifest and the parts the server does not hold.
    let version = 1;
    let held = new Set<string>();
    const pushes: string[] = [];
    const push = async (what: string, pushed: VaultState) => {
      const begun = performance.now();
      const parts = await nameParts(partsOf(pushed), key);
      const names = parts.map((part) => part.name);
      const manifest = await seal(manifestOf(pushed, names), key, { kind: 'vaults', id: created.id, version: version + 1 });
      const sent = await Promise.all(
        parts.filter((part) => !held.has(part.name)).map(async (part) => ({ name: part.name, body: await sealPart(part, key, created.id) })),
      );
      const body = framePush(manifest, sent);
      const ms = performance.now() - begun;
      const answer = await fetch(`${server.url}/api/sync/vaults/${created.id}`, {
        method: 'PUT',
        headers: { 'Content-Type': 'application/octet-stream', Authorization: `Bearer ${token}`, 'If-Match': `"v${version}"`, 'Sync-Parts': names.join(',') },
        body,
      });
      expect(answer.status).toBe(200);
      version += 1;
      held = new Set(names);
      pushes.push(`  ${what}: ${kib(body.length)} (${sent.length} of ${names.length} parts; named and sealed in ${ms.toFixed(0)} ms)`);
    };
    const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
    await push('first push in parts', state);
    await push('one card edited', edited);
    const reviewed = (ids: string[], count: number): VaultState => {
      const reviews = { ...edited.reviews };
      for (let i = 0; i < count; i += 1) {
        const id = ids[i % ids.length] ?? 'deck-0';
        const before = reviews[id];
        if (before) reviews[id] = { ...before, log: [...before.log, [`${id}-card-${i}`, now + 60_000 + i, 'good']] };
      }
      return { ...edited, reviews };
    };
    await push('ten reviews in one deck', reviewed(['deck-11'], 10));
    const tenDecks = reviewed(
      Array.from({ length: 10 }, (_, i) => `deck-${20 + i * 7}`),
      10,
    );
    await push('ten reviews in ten decks', tenDecks);

    // One new picture on one card (a 1024 px picture as the editor makes it: about 60 KiB, and
    // incompressible like every JPEG or WebP): the card's deck part, the list, the sealed file.
    const picture = crypto.getRandomValues(new Uint8Array(60 * 1024)).buffer;
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', picture));
    const hash = Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
    const doc = tenDecks.decks['deck-42'];
    const shown = doc && renderDeck('deck-42', doc);
    if (!doc || !shown || !Array.isArray(shown.cards)) throw new Error('no deck-42');
    const cards = (shown.cards as Record<string, unknown>[]).map((card, i) =>
      i === 0 ? { ...card, media: [{ hash, name: 'picture.webp', kind: 'image', field: 'front' }] } : card,
    );
    const later = clockOf('a', now + 30);
    const withPicture: VaultState = { ...tenDecks, decks: { ...tenDecks.decks, 'deck-42': editDeck({ ...shown, cards }, doc, shown, () => later.now(), 'a') } };
    const pushesBefore = pushes.length;
    await push('one new picture: its deck', withPicture);
    const partPush = Number(/: ([\d.]+) KiB/.exec(pushes[pushesBefore] ?? '')?.[1] ?? 0) * 1024;
    const listed = await fetch(`${server.url}/api/sync/vaults/${created.id}/media`);
    const listBytes = (await listed.arrayBuffer()).byteLength;
    const name = await mediaName(key, hash);
    const sealedPicture = await sealMedia({ type: 'image/webp', bytes: picture }, { kind: 'vaults', id: created.id, key }, name);
    const sentPicture = await fetch(`${server.url}/api/sync/vaults/${created.id}/media/${name}`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/octet-stream', Authorization: `Bearer ${token}` },
      body: sealedPicture,
    });
    expect(sentPicture.status).toBe(201);
    const again = await fetch(`${server.url}/api/sync/vaults/${created.id}/media/${name}`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/octet-stream', Authorization: `Bearer ${token}` },
      body: sealedPicture,
    });
    expect(again.status).toBe(200);
    const total = partPush + listBytes + sealedPicture.length;
    pushes.push(
      `  one new picture (60.0 KiB) in the ${DECKS}-deck collection: ${kib(total)} in all = its deck's push ${kib(partPush)} + the vault's file list ${listBytes} B + the sealed picture ${kib(sealedPicture.length)} (${sealedPicture.length - picture.byteLength} B over the file)`,
    );

    console.log(
      [
        `sync vault v2, ${DECKS} decks, ${CARDS_IN_ALL} cards, ${marks} review marks:`,
        `  in localStorage ${kib(stored)}; vault JSON ${kib(json)}; uploaded (gzip + AES-GCM) ${kib(sealed.length)}; sync base ${kib(baseChars)} (stored deflated: ${kib(storedBaseChars)})`,
        `  build from storage ${buildMs.toFixed(0)} ms; merge with another device's copy (300 concurrent card edits, 300 cards added) ${mergeMs.toFixed(0)} ms;`,
        `  merge with itself ${selfMs.toFixed(0)} ms; one local save told apart from the base ${diffMs.toFixed(0)} ms; gzip + seal ${sealMs.toFixed(0)} ms (Node ${process.version})`,
        'bytes per push in parts (vault v3: a manifest and 32 buckets of decks with their review logs):',
        ...pushes,
      ].join('\n'),
    );
  });
});

// One schedule on every synced device (issue 34, item 1): what a deck's due counts, item states
// and progress show is a pure function of what sync carries. Replicas with their own storage,
// adapters, ids, clocks and histories (syncReplicas.ts) import an Anki package (the committed
// fixture, read with sql.js), mark cards, undo, and sync in random orders; afterwards every one of
// them, and a browser that joins with nothing but the vault, shows the same schedule.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import initSqlJs from 'sql.js';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Deck } from './flashcards/deck';
import { readPackage, type PackageResult } from './flashcards/io/apkg/readPackage';
import { openWith } from './flashcards/io/apkg/sqlJsDatabase';
import { deckKeys, dueCount, nextDue, reviewDueCount } from './flashcards/srs/due';
import { deriveItems, parseLog, parseSeeds, recordMark, toStored, undoMark, type ReviewRecord } from './flashcards/srs/reviewLog';
import { reviewsKey } from './flashcards/storage';
import { deckProgress } from './flashcards/srs/stats';
import { emptyState, type VaultState } from './sync/merge';
import { replica, syncThrough, type Replica } from './syncReplicas';

const FIXTURES = fileURLToPath(new URL('../e2e/fixtures/anki/', import.meta.url));
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

let anki: PackageResult;
let ankiNow = 0;

beforeAll(async () => {
  const facts = JSON.parse(readFileSync(`${FIXTURES}current.apkg.json`, 'utf8')) as { now: number };
  ankiNow = facts.now;
  const SQL = await initSqlJs();
  let n = 0;
  anki = await readPackage(
    new Uint8Array(readFileSync(`${FIXTURES}current.apkg`)),
    (bytes) => Promise.resolve(openWith(SQL, bytes)),
    () => `anki-${(n += 1)}`,
    new Date(ankiNow),
  );
});

/** The Anki deck named `name` and its review record, as the import plan hands them to the store. */
function ankiDeck(name: string): { deck: Deck; reviews: ReviewRecord } {
  const index = anki.decks.findIndex((deck) => deck.name === name);
  const deck = anki.decks[index];
  const reviews = anki.reviews[index];
  if (!deck || !reviews) throw new Error(`no deck ${name}`);
  return { deck, reviews };
}

/** Everything the deck list, the practice page and the progress page show of a deck's schedule at `now`. */
function scheduleOf(b: Replica, deckId: string, now: number) {
  const deck = b.store.readDeck(deckId);
  if (!deck) throw new Error(`${b.name} has no deck ${deckId}`);
  const reviews = b.store.readReviews(deckId);
  const keys = deckKeys(deck);
  const progress = deckProgress(keys, reviews, now);
  const listed = b.store.listSummaries(now).find((summary) => summary.id === deckId);
  return {
    items: reviews.items,
    due: dueCount(keys, reviews, now),
    reviewDue: reviewDueCount(keys, reviews, now),
    next: nextDue(keys, reviews, now),
    progress: { new: progress.new, learning: progress.learning, known: progress.known, retention: progress.retention, streak: progress.streak },
    list: listed && { due: listed.due, reviewDue: listed.reviewDue },
  };
}

describe('an imported Anki deck with reviews, synced', () => {
  it('shows the same due counts, states and progress on the importing browser and one that joined', () => {
    let now = ankiNow;
    const one = replica('one', () => now);
    const two = replica('two', () => now);
    const { deck, reviews } = ankiDeck('Spanish');
    expect(one.store.importDecks([deck], { [deck.id]: reviews })).toEqual({ ok: true });
    let vault: VaultState = emptyState();
    vault = syncThrough(one, vault);
    vault = syncThrough(two, vault);
    expect(scheduleOf(two, deck.id, now)).toEqual(scheduleOf(one, deck.id, now));

    // Marks on both: some of the same cards, some reviewed in Anki, some learning, some new.
    const keys = deckKeys(deck);
    const mark = (b: Replica, key: string, grade: 'good' | 'again') => {
      now += MINUTE;
      b.store.writeReviews(deck.id, recordMark(b.store.readReviews(deck.id), key, grade, now));
    };
    keys.slice(0, 8).forEach((key, i) => mark(one, key, i % 3 === 0 ? 'again' : 'good'));
    keys.slice(4, 12).forEach((key, i) => mark(two, key, i % 4 === 0 ? 'again' : 'good'));
    for (let round = 0; round < 2; round += 1) for (const b of [one, two]) vault = syncThrough(b, vault);

    for (const at of [now, now + 10 * MINUTE, now + DAY, now + 5 * DAY]) expect(scheduleOf(two, deck.id, at)).toEqual(scheduleOf(one, deck.id, at));
  });
});

type Op =
  | { kind: 'mark'; who: number; item: number; knew: boolean }
  | { kind: 'undo'; who: number }
  | { kind: 'sync'; who: number }
  | { kind: 'wait'; minutes: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('mark' as const), who: fc.nat(2), item: fc.nat(40), knew: fc.boolean() }),
  fc.record({ kind: fc.constant('mark' as const), who: fc.nat(2), item: fc.nat(40), knew: fc.boolean() }),
  fc.record({ kind: fc.constant('undo' as const), who: fc.nat(2) }),
  fc.record({ kind: fc.constant('sync' as const), who: fc.nat(2) }),
  fc.record({ kind: fc.constant('wait' as const), minutes: fc.integer({ min: 0, max: 3 * 24 * 60 }) }),
);

describe('replicas with their own clocks and histories', () => {
  it('show one schedule after syncing, the same a browser joining with only the vault shows, derived from the vault alone', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -2 * 24 * 60, max: 2 * 24 * 60 }), { minLength: 3, maxLength: 3 }),
        fc.array(opArb, { maxLength: 30 }),
        (skews, ops) => {
          let now = ankiNow;
          const replicas = skews.map((skew, i) => replica(`r${i}`, () => now + skew * MINUTE));
          const [first] = replicas;
          if (!first) return false;
          const { deck, reviews } = ankiDeck('Spanish');
          first.store.importDecks([deck], { [deck.id]: reviews });
          let vault: VaultState = emptyState();
          for (const b of replicas) vault = syncThrough(b, vault);
          const keys = deckKeys(deck);
          for (const op of ops) {
            now += MINUTE;
            if (op.kind === 'wait') now += op.minutes * MINUTE;
            else {
              const b = replicas[op.who];
              if (!b) continue;
              const wall = now + (skews[op.who] ?? 0) * MINUTE;
              const current = b.store.readReviews(deck.id);
              if (op.kind === 'sync') vault = syncThrough(b, vault);
              else if (op.kind === 'undo') {
                const last = current.log[current.log.length - 1];
                if (last) b.store.writeReviews(deck.id, undoMark(current, last[0]));
              } else b.store.writeReviews(deck.id, recordMark(current, keys[op.item % keys.length] ?? '', op.knew ? 'good' : 'again', wall));
            }
          }
          for (let round = 0; round < 2; round += 1) for (const b of replicas) vault = syncThrough(b, vault);
          const late = replica('late', () => now);
          vault = syncThrough(late, vault);

          const merged = vault.reviews[deck.id];
          const fromVault = merged && deriveItems(parseSeeds(merged.seeds), parseLog(merged.log));
          for (const at of [now, now + 10 * MINUTE, now + DAY, now + 30 * DAY]) {
            const expected = scheduleOf(first, deck.id, at);
            expect(expected.items).toEqual(fromVault);
            for (const b of [...replicas, late]) expect(scheduleOf(b, deck.id, at), `${b.name} at +${at - now} ms`).toEqual(expected);
          }
          return true;
        },
      ),
      { numRuns: 60 },
    );
  }, 60_000);
});

describe('records and vaults from before seeds', () => {
  it('agree once both browsers run this version: the importing browser’s states travel', () => {
    let now = ankiNow;
    const one = replica('one', () => now);
    const two = replica('two', () => now);
    const { deck, reviews } = ankiDeck('Spanish');
    one.store.importDecks([deck], { [deck.id]: reviews });
    // As the version before seeds left them: the importing browser kept Anki's states, the one
    // that joined replayed the marks; neither record names seeds, and the vault holds none.
    const replayed = deriveItems({}, reviews.log);
    for (const [b, items] of [
      [one, reviews.items],
      [two, replayed],
    ] as const) {
      b.storage.setItem(reviewsKey(deck.id), JSON.stringify({ type: 'reviews', version: 1, newPerDay: reviews.newPerDay, items, log: reviews.log }));
    }
    syncThrough(two, syncThrough(one, emptyState()));
    now += MINUTE;
    expect(scheduleOf(two, deck.id, now)).toEqual(scheduleOf(one, deck.id, now));
    expect(one.store.readReviews(deck.id).items).toEqual(reviews.items);
    expect(JSON.parse(two.storage.getItem(reviewsKey(deck.id)) ?? '{}')).toEqual(toStored(one.store.readReviews(deck.id)));
  });
});

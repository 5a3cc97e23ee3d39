// The bound data and the bounded opening: a body opens only as the kind, id and version it was
// sealed for, never older than what was seen; a body sealed before binding opens once, not after a
// bound one; a gzip bomb stops at the limit; a body holding too much is refused before it is used.
import { describe, expect, it } from 'vitest';
import { NOTHING_SEEN, openPlaced } from './binding';
import { newBlobId, newKey, open, placeLabel, seal, type Place } from './crypto';
import { checkLimits, OPEN_LIMITS } from './limits';

const id = newBlobId();
const at = (version: number, kind: Place['kind'] = 'vaults', blob = id): Place => ({ kind, id: blob, version });

describe('the place label', () => {
  it('is the UTF-8 of hearth-sync/1, kind, id and version on lines', () => {
    expect(new TextDecoder().decode(placeLabel(at(7)))).toBe(`hearth-sync/1\nvaults\n${id}\nv7`);
    expect(newBlobId()).toMatch(/^[0-9a-f]{32}$/);
    expect(newBlobId()).not.toBe(newBlobId());
  });
});

describe('a body bound to its place', () => {
  it('opens where it was sealed for, and remembers the version and that it was bound', async () => {
    const key = await newKey();
    const opened = await openPlaced(await seal({ n: 2 }, key, at(2)), key, at(2), NOTHING_SEEN);
    expect(opened).toEqual({ value: { n: 2 }, unbound: false, seen: { seenVersion: 2, boundSeen: true } });
  });

  it('refuses the version-1 body stored as version 2 (a replay), in words', async () => {
    const key = await newKey();
    const v1 = await seal({ n: 1 }, key, at(1));
    const seen = { seenVersion: 1, boundSeen: true };
    await expect(openPlaced(v1, key, at(2), seen)).rejects.toThrow(
      'The server sent data that was not written as version 2 of this vault (an old copy put back, or one moved from elsewhere). It was refused, and nothing here was changed.',
    );
    // Even on a device that never opened it: it is refused, never taken.
    await expect(openPlaced(v1, key, at(2), NOTHING_SEEN)).rejects.toThrow(/does not open the stored data, or the data was not written for this link/);
  });

  it('refuses a body moved to another id or another kind', async () => {
    const key = await newKey();
    const body = await seal({ n: 1 }, key, at(3));
    const seen = { seenVersion: 2, boundSeen: true };
    await expect(openPlaced(body, key, at(3, 'vaults', newBlobId()), seen)).rejects.toThrow(/not written as version 3 of this vault/);
    await expect(openPlaced(body, key, at(3, 'shares'), seen)).rejects.toThrow(/not written as version 3 of this shared deck/);
    await expect(open(body, key, at(3, 'shares'))).rejects.toThrow(/does not open/);
    expect(await open(body, key, at(3))).toEqual({ n: 1 });
  });

  it('refuses a version older than one seen (a rollback) before decrypting it', async () => {
    const key = await newKey();
    const v3 = await seal({ n: 3 }, key, at(3));
    await expect(openPlaced(v3, key, at(3), { seenVersion: 5, boundSeen: true })).rejects.toThrow(
      'The server sent an older version of this vault (version 3) than this device has already seen (version 5). It was refused, and nothing here was changed.',
    );
    // The same version again (a reload, another tab) is fine.
    expect((await openPlaced(v3, key, at(3), { seenVersion: 3, boundSeen: true })).value).toEqual({ n: 3 });
  });

  it('takes a body sealed before binding only while no bound one was seen, and says it was unbound', async () => {
    const key = await newKey();
    const legacy = await seal({ old: true }, key);
    const first = await openPlaced(legacy, key, at(4), NOTHING_SEEN);
    expect(first).toEqual({ value: { old: true }, unbound: true, seen: { seenVersion: 4, boundSeen: false } });
    // Again at a later version, still nothing bound seen: taken.
    expect((await openPlaced(legacy, key, at(5), first.seen)).unbound).toBe(true);
    const bound = await openPlaced(await seal({ old: false }, key, at(6)), key, at(6), first.seen);
    expect(bound.seen).toEqual({ seenVersion: 6, boundSeen: true });
    await expect(openPlaced(legacy, key, at(7), bound.seen)).rejects.toThrow(
      'The server sent an old unprotected copy of this vault after this device had seen a protected one. It was refused, and nothing here was changed.',
    );
  });

  it('with another key, says the link is wrong', async () => {
    const body = await seal({ n: 1 }, await newKey(), at(1));
    await expect(openPlaced(body, await newKey(), at(1), NOTHING_SEEN)).rejects.toThrow(/copy the whole link again/);
  });
});

describe('bounded opening', () => {
  it('stops inflating a gzip bomb at the limit, in words, and still opens a normal vault', async () => {
    const key = await newKey();
    // 4 MiB of zeros inflate from a few KiB.
    const bomb = await seal({ padding: '0'.repeat(4 * 1024 * 1024) }, key, at(1));
    expect(bomb.length).toBeLessThan(64 * 1024);
    const limits = { ...OPEN_LIMITS, unpackedBytes: 1024 * 1024 };
    await expect(openPlaced(bomb, key, at(1), NOTHING_SEEN, limits)).rejects.toThrow('This vault is larger than this app opens (1 MiB unpacked).');
    await expect(open(bomb, key, at(1), 1024 * 1024)).rejects.toThrow(/larger than this app opens/);
    const normal = { decks: { a: { deck: { name: 'Verbs', cards: [{ front: 'être', back: 'to be' }] } } } };
    expect((await openPlaced(await seal(normal, key, at(1)), key, at(1), NOTHING_SEEN, limits)).value).toEqual(normal);
  });

  it('refuses a body holding too many decks, cards, marks, values or levels', () => {
    const limits = { ...OPEN_LIMITS, decks: 3, cards: 5, marks: 4, values: 1000, depth: 10 };
    const decks = (n: number) => ({ decks: Object.fromEntries(Array.from({ length: n }, (_, i) => [`d${i}`, {}])) });
    expect(() => checkLimits(decks(3), 'vault', limits)).not.toThrow();
    expect(() => checkLimits(decks(4), 'vault', limits)).toThrow('This vault holds more than this app opens (over 3 decks).');
    const cards = { decks: { a: { deck: { cards: [1, 2, 3] } }, b: { deck: { cards: [4, 5, 6] } } } };
    expect(() => checkLimits(cards, 'vault', limits)).toThrow(/over 5 cards/);
    expect(() => checkLimits({ reviews: { a: { log: [1, 2, 3, 4, 5] } } }, 'shared deck', limits)).toThrow(
      'This shared deck holds more than this app opens (over 4 review marks).',
    );
    expect(() => checkLimits({ junk: Array.from({ length: 2000 }, () => 0) }, 'vault', limits)).toThrow(/over 1,000 values/);
    let deep: unknown = 0;
    for (let i = 0; i < 20; i += 1) deep = [deep];
    expect(() => checkLimits(deep, 'vault', limits)).toThrow(/over 10 levels of nesting/);
    // Deeper than any stack: refused, not a stack overflow.
    for (let i = 0; i < 100_000; i += 1) deep = [deep];
    expect(() => checkLimits(deep, 'vault')).toThrow(/levels of nesting/);
  });
});

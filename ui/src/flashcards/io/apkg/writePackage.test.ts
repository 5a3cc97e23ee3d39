// The package writer end to end in Node: a deck exported with sql.js and fflate, then read back by
// Hearth's own package reader (the import), which must give the same cards, guids, tags and the
// same due counts; the zip's entries and media map as Anki reads them.
import { writeFileSync } from 'node:fs';
import initSqlJs from 'sql.js';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import type { Deck } from '../../deck';
import { deckKeys, dueCount } from '../../srs/due';
import { emptyReviews, recordMark, type ReviewRecord } from '../../srs/reviewLog';
import { collectionRows } from './exportRows';
import { readPackage } from './readPackage';
import { openWith } from './sqlJsDatabase';
import { fieldChecksum, mediaMap, writePackage } from './writePackage';

const DAY = 86_400_000;
const NOW = new Date(2026, 10, 20, 15, 0).getTime();
const HASH_A = 'a'.repeat(64);
const HASH_B = 'b'.repeat(64);

const card = (id: string, front: string, back: string, extra: Partial<Deck['cards'][number]> = {}): Deck['cards'][number] => ({
  id,
  front,
  back,
  pronunciation: '',
  gender: '',
  example: '',
  tags: [],
  suspended: false,
  media: [],
  guid: `guid-${id}`,
  ...extra,
});

function sampleDeck(bidirectional: boolean): { deck: Deck; reviews: ReviewRecord } {
  const deck: Deck = {
    id: 'deck-1',
    name: 'Français',
    author: '',
    description: '',
    sourceLang: 'fr',
    targetLang: 'en',
    bidirectional,
    pronunciationField: false,
    genderField: false,
    exampleField: false,
    autoplay: false,
    createdAt: new Date(NOW - 30 * DAY).toISOString(),
    type: 'deck',
    version: 1,
    cards: [
      card('c1', 'le chat', 'the cat', { tags: ['animals', 'easy'], media: [{ hash: HASH_A, name: 'chat.png', kind: 'image', field: 'front' }] }),
      card('c2', 'le chien', 'the dog', { media: [{ hash: HASH_B, name: 'chien.mp3', kind: 'sound', field: 'back' }] }),
      card('c3', 'Paris est en {{c1::France}} et {{c2::Europe}}.', ''),
      card('c4', 'la maison', 'the house', { suspended: true }),
      card('c5', 'a <b> & c', 'line one\nline two', { guid: '' }),
      card('c6', '', ''),
    ],
  };
  let reviews = emptyReviews(10);
  const marks: [string, number, 'good' | 'again'][] = [
    ['c1', NOW - 20 * DAY, 'good'],
    ['c1:reverse', NOW - 20 * DAY + 60_000, 'again'],
    ['c1:reverse', NOW - 20 * DAY + 120_000, 'good'],
    ['c1', NOW - 12 * DAY, 'good'],
    ['c3', NOW - 10 * DAY, 'good'],
    ['c3:c2', NOW - 3 * DAY, 'again'],
    ['c4', NOW - 5 * DAY, 'good'],
    ['c2', NOW - 2 * 3_600_000, 'again'],
  ];
  for (const [key, at, mark] of marks) reviews = recordMark(reviews, key, mark, at);
  return { deck, reviews };
}

describe('writePackage', () => {
  it('writes a package Hearth’s own import reads back with the same cards, guids, tags and due counts', async () => {
    const sql = await initSqlJs();
    // One-way: Hearth's import makes a deck two-way only when every note is a reversed one.
    const { deck, reviews } = sampleDeck(false);
    const rows = collectionRows({ deck, reviews, now: NOW });
    const files = new Map([[HASH_A, new Uint8Array([1, 2, 3])]]);
    const { bytes, missing } = await writePackage(sql, rows, files);
    if (process.env.HEARTH_APKG_OUT) writeFileSync(process.env.HEARTH_APKG_OUT, bytes);
    expect(missing).toBe(1);

    const entries = unzipSync(bytes);
    expect(Object.keys(entries).sort()).toEqual(['0', 'collection.anki21', 'media', 'meta']);
    expect(JSON.parse(new TextDecoder().decode(entries.media))).toEqual({ '0': 'chat.png' });
    expect([...(entries['0'] ?? [])]).toEqual([1, 2, 3]);

    const back = await readPackage(
      bytes,
      (db) => Promise.resolve(openWith(sql, db)),
      () => `n${Math.random()}`,
      new Date(NOW),
    );
    expect(back.decks).toHaveLength(1);
    const [read] = back.decks;
    expect(read?.name).toBe('Français');
    expect(read?.bidirectional).toBe(false);
    expect(read?.cards.map((c) => [c.front, c.guid, c.tags])).toEqual([
      ['le chat', 'guid-c1', ['animals', 'easy']],
      ['le chien', 'guid-c2', []],
      ['Paris est en {{c1::France}} et {{c2::Europe}}.', 'guid-c3', []],
      ['la maison', 'guid-c4', []],
      ['a <b> & c', expect.stringMatching(/^\S{1,10}$/) as unknown as string, []],
    ]);
    expect(read?.cards[3]?.suspended).toBe(true);
    // Every mark of an exported item (the one-way deck has no reverse items).
    expect(back.summary.reviews).toBe(reviews.log.filter(([key]) => !key.endsWith(':reverse')).length);
    // Due now, as Hearth counts it, before and after the trip.
    const before = dueCount(deckKeys(deck), reviews, NOW);
    const after = back.reviews[0] && read ? dueCount(deckKeys(read), back.reviews[0], NOW) : -1;
    expect(after).toBe(before);
  });

  it('writes Anki’s checksum and media map', async () => {
    // sha1("hello") = aaf4c61d…
    await expect(fieldChecksum('hello')).resolves.toBe(0xaaf4c61d);
    expect(mediaMap(['a.png', 'b c.mp3'])).toBe('{"0":"a.png","1":"b c.mp3"}');
  });
});

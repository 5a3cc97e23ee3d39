// Writes an Anki package from a collection's rows (exportRows.ts) with sql.js and fflate: the
// collection as Anki's legacy schema 11 database ("collection.anki21", which every Anki since
// 2.1 and AnkiDroid import, scheduling included), the "meta" entry saying so (package version 2),
// the "media" map (JSON: entry number → file name) and each file as a numbered entry. Runs in the
// export Worker; sql.js comes in, so tests can hand it their own.
import type { SqlJsStatic } from 'sql.js';
import { zipSync, type Zippable } from 'fflate';
import type { CollectionRows } from './exportRows';

/** The tables and indexes of schema 11, as Anki creates them. */
const SCHEMA = `
CREATE TABLE col (id integer PRIMARY KEY, crt integer NOT NULL, mod integer NOT NULL, scm integer NOT NULL, ver integer NOT NULL,
  dty integer NOT NULL, usn integer NOT NULL, ls integer NOT NULL, conf text NOT NULL, models text NOT NULL, decks text NOT NULL,
  dconf text NOT NULL, tags text NOT NULL);
CREATE TABLE notes (id integer PRIMARY KEY, guid text NOT NULL, mid integer NOT NULL, mod integer NOT NULL, usn integer NOT NULL,
  tags text NOT NULL, flds text NOT NULL, sfld integer NOT NULL, csum integer NOT NULL, flags integer NOT NULL, data text NOT NULL);
CREATE TABLE cards (id integer PRIMARY KEY, nid integer NOT NULL, did integer NOT NULL, ord integer NOT NULL, mod integer NOT NULL,
  usn integer NOT NULL, type integer NOT NULL, queue integer NOT NULL, due integer NOT NULL, ivl integer NOT NULL, factor integer NOT NULL,
  reps integer NOT NULL, lapses integer NOT NULL, left integer NOT NULL, odue integer NOT NULL, odid integer NOT NULL, flags integer NOT NULL,
  data text NOT NULL);
CREATE TABLE revlog (id integer PRIMARY KEY, cid integer NOT NULL, usn integer NOT NULL, ease integer NOT NULL, ivl integer NOT NULL,
  lastIvl integer NOT NULL, factor integer NOT NULL, time integer NOT NULL, type integer NOT NULL);
CREATE TABLE graves (usn integer NOT NULL, oid integer NOT NULL, type integer NOT NULL);
CREATE INDEX ix_notes_usn ON notes (usn);
CREATE INDEX ix_cards_usn ON cards (usn);
CREATE INDEX ix_revlog_usn ON revlog (usn);
CREATE INDEX ix_cards_nid ON cards (nid);
CREATE INDEX ix_cards_sched ON cards (did, queue, due);
CREATE INDEX ix_revlog_cid ON revlog (cid);
CREATE INDEX ix_notes_csum ON notes (csum);
`;

/** Anki's note checksum: the first 8 hex digits of the SHA-1 of the sort field, as a number. */
export async function fieldChecksum(text: string): Promise<number> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-1', new TextEncoder().encode(text)));
  return (((digest[0] ?? 0) << 24) | ((digest[1] ?? 0) << 16) | ((digest[2] ?? 0) << 8) | (digest[3] ?? 0)) >>> 0;
}

/** The collection database's bytes. */
export async function collectionDatabase(sql: SqlJsStatic, rows: CollectionRows): Promise<Uint8Array> {
  const db = new sql.Database();
  try {
    db.exec(SCHEMA);
    db.exec('BEGIN');
    db.run('INSERT INTO col VALUES (1, ?, ?, ?, 11, 0, 0, 0, ?, ?, ?, ?, ?)', [
      rows.crt,
      rows.now,
      rows.now,
      rows.conf,
      rows.models,
      rows.decks,
      rows.dconf,
      '{}',
    ]);
    const note = db.prepare('INSERT INTO notes VALUES (?, ?, ?, ?, -1, ?, ?, ?, ?, 0, ?)');
    for (const row of rows.notes)
      note.run([row.id, row.guid, row.mid, row.mod, row.tags, row.fields.join('\x1f'), row.sortField, await fieldChecksum(row.sortField), '']);
    note.free();
    const card = db.prepare('INSERT INTO cards VALUES (?, ?, ?, ?, ?, -1, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, ?)');
    for (const row of rows.cards) {
      card.run([row.id, row.nid, row.did, row.ord, row.mod, row.type, row.queue, row.due, row.ivl, row.factor, row.reps, row.lapses, row.left, row.data]);
    }
    card.free();
    const review = db.prepare('INSERT INTO revlog VALUES (?, ?, -1, ?, ?, ?, ?, 0, ?)');
    for (const row of rows.revlog) review.run([row.id, row.cid, row.ease, row.ivl, row.lastIvl, row.factor, row.type]);
    review.free();
    db.exec('COMMIT');
    return db.export();
  } finally {
    db.close();
  }
}

/** The package version entry: protobuf PackageMetadata { version: LEGACY_2 }. */
const META = new Uint8Array([0x08, 0x02]);

/** The `media` entry: which numbered entry holds which file. */
export function mediaMap(names: readonly string[]): string {
  return JSON.stringify(Object.fromEntries(names.map((name, index) => [String(index), name])));
}

/**
 * The package: the collection, meta, the media map and the files that are here (`files` by
 * hash; a file this device does not hold is left out of the map, and its name stays in the field).
 */
export async function writePackage(
  sql: SqlJsStatic,
  rows: CollectionRows,
  files: ReadonlyMap<string, Uint8Array>,
): Promise<{ bytes: Uint8Array; missing: number }> {
  const database = await collectionDatabase(sql, rows);
  const entries: Zippable = { 'collection.anki21': [database, { level: 6 }], meta: [META, { level: 0 }] };
  const names: string[] = [];
  let missing = 0;
  for (const entry of rows.media) {
    const bytes = files.get(entry.hash);
    if (!bytes) {
      missing += 1;
      continue;
    }
    // Pictures and sounds are compressed already: stored as they are.
    entries[String(names.length)] = [bytes, { level: 0 }];
    names.push(entry.name);
  }
  entries.media = [new TextEncoder().encode(mediaMap(names)), { level: 6 }];
  return { bytes: zipSync(entries), missing };
}

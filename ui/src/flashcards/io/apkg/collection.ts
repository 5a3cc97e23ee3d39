// Reads an Anki collection (an SQLite database, schema 11 of the legacy packages or 18 of the
// current ones) into plain records: note types, decks, notes, cards and the review log. The
// database comes in as a query function, so this module does not depend on sql.js itself.
import { bytesField, numberField, readMessage, repeatedBytes, stringField } from './protobuf';
import { PackageError } from './budgets';

export type Query = (sql: string) => unknown[][];

export interface AnkiNotetype {
  id: number;
  name: string;
  cloze: boolean;
  fields: string[];
  /** Question formats, by template ordinal. */
  questions: string[];
}

export interface AnkiDeck {
  id: number;
  /** As Anki shows it: "Parent::Child". */
  name: string;
  newPerDay: number;
}

export interface AnkiNote {
  id: number;
  /** Anki's note guid: what an import over the same note matches on. */
  guid: string;
  notetype: number;
  fields: string[];
  tags: string[];
}

export interface AnkiCard {
  id: number;
  note: number;
  /** The card's home deck (the original one when it sits in a filtered deck). */
  deck: number;
  ord: number;
  /** 0 new, 1 learning, 2 review, 3 relearning. */
  type: number;
  /** -1 suspended, -2/-3 buried, 0 new, 1 learning (due in seconds), 2 review, 3 day learning. */
  queue: number;
  due: number;
  interval: number;
  reps: number;
  lapses: number;
  /** FSRS memory state and last review time, when Anki kept them. */
  stability: number | null;
  difficulty: number | null;
  lastReview: number | null;
}

export interface AnkiReview {
  card: number;
  /** Epoch ms. */
  at: number;
  /** 1 Again, 2 Hard, 3 Good, 4 Easy; 0 for a manual reschedule. */
  ease: number;
}

export interface AnkiCollection {
  schema: number;
  /** Epoch seconds of the collection's first day start: day n of the schedule starts n days later. */
  created: number;
  notetypes: Map<number, AnkiNotetype>;
  decks: Map<number, AnkiDeck>;
  notes: AnkiNote[];
  cards: AnkiCard[];
  reviews: AnkiReview[];
}

/** The schemas this reader knows: 11 (legacy packages) to 18 (Anki 2.1.50 to today). */
export const MIN_SCHEMA = 11;
export const MAX_SCHEMA = 18;

const num = (value: unknown, fallback = 0) => (typeof value === 'number' ? value : typeof value === 'bigint' ? Number(value) : fallback);
const str = (value: unknown) => (typeof value === 'string' ? value : '');
const blob = (value: unknown) => (value instanceof Uint8Array ? value : new Uint8Array());

function parseJsonObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function hasTable(query: Query, name: string): boolean {
  return query(`select count(*) from sqlite_master where type = 'table' and name = '${name}'`)[0]?.[0] === 1;
}

function legacyModels(query: Query): { notetypes: Map<number, AnkiNotetype>; decks: Map<number, AnkiDeck> } {
  const [models, decksJson, dconf] = (query('select models, decks, dconf from col')[0] ?? []).map(str);
  const notetypes = new Map<number, AnkiNotetype>();
  for (const raw of Object.values(parseJsonObject(models ?? ''))) {
    const model = raw as {
      id?: unknown;
      name?: unknown;
      type?: unknown;
      flds?: { name?: unknown; ord?: unknown }[];
      tmpls?: { qfmt?: unknown; ord?: unknown }[];
    };
    const id = num(model.id);
    const fields = [...(model.flds ?? [])].sort((a, b) => num(a.ord) - num(b.ord)).map((field) => str(field.name));
    const questions = [...(model.tmpls ?? [])].sort((a, b) => num(a.ord) - num(b.ord)).map((template) => str(template.qfmt));
    notetypes.set(id, { id, name: str(model.name), cloze: num(model.type) === 1, fields, questions });
  }
  const configs = parseJsonObject(dconf ?? '');
  const decks = new Map<number, AnkiDeck>();
  for (const raw of Object.values(parseJsonObject(decksJson ?? ''))) {
    const deck = raw as { id?: unknown; name?: unknown; conf?: unknown };
    const config = configs[String(num(deck.conf, 1))] as { new?: { perDay?: unknown } } | undefined;
    decks.set(num(deck.id), { id: num(deck.id), name: str(deck.name), newPerDay: num(config?.new?.perDay, 20) });
  }
  return { notetypes, decks };
}

function currentModels(query: Query): { notetypes: Map<number, AnkiNotetype>; decks: Map<number, AnkiDeck> } {
  const notetypes = new Map<number, AnkiNotetype>();
  for (const [id, name, config] of query('select id, name, config from notetypes')) {
    // NotetypeConfig: field 1 is the kind (1 = cloze).
    notetypes.set(num(id), { id: num(id), name: str(name), cloze: numberField(readMessage(blob(config)), 1, 0) === 1, fields: [], questions: [] });
  }
  // No ORDER BY on these tables: their indexes use Anki's own "unicase" collation, which sql.js
  // lacks, so the rows are sorted here.
  const byOrder = (rows: unknown[][]) => [...rows].sort((a, b) => num(a[0]) - num(b[0]) || num(a[1]) - num(b[1]));
  for (const [ntid, , name] of byOrder(query('select ntid, ord, name from fields'))) notetypes.get(num(ntid))?.fields.push(str(name));
  for (const [ntid, , config] of byOrder(query('select ntid, ord, config from templates'))) {
    // CardTemplate.Config: field 1 is the question format.
    notetypes.get(num(ntid))?.questions.push(stringField(readMessage(blob(config)), 1));
  }
  const perDay = new Map<number, number>();
  for (const [id, config] of query('select id, config from deck_config')) perDay.set(num(id), numberField(readMessage(blob(config)), 9, 20));
  const decks = new Map<number, AnkiDeck>();
  for (const [id, name, kind] of query('select id, name, kind from decks')) {
    // Deck.kind: field 1 is a normal deck, whose field 1 is its options' id.
    const normal = bytesField(readMessage(blob(kind)), 1);
    const configId = normal ? numberField(readMessage(normal), 1, 1) : 1;
    decks.set(num(id), { id: num(id), name: str(name).split('\x1f').join('::'), newPerDay: perDay.get(configId) ?? 20 });
  }
  return { notetypes, decks };
}

function cardOf(row: unknown[]): AnkiCard {
  const [id, nid, did, ord, type, queue, due, ivl, reps, lapses, odue, odid, data] = row;
  const filtered = num(odid) !== 0;
  const extra = parseJsonObject(str(data));
  const finite = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null);
  return {
    id: num(id),
    note: num(nid),
    deck: filtered ? num(odid) : num(did),
    ord: num(ord),
    type: num(type),
    queue: num(queue),
    due: filtered && num(odue) !== 0 ? num(odue) : num(due),
    interval: num(ivl),
    reps: num(reps),
    lapses: num(lapses),
    stability: finite(extra.s),
    difficulty: finite(extra.d),
    lastReview: finite(extra.lrt),
  };
}

/** The collection as records; a PackageError when it is not an Anki collection this reader knows. */
export function readCollection(query: Query): AnkiCollection {
  if (!hasTable(query, 'col') || !hasTable(query, 'cards') || !hasTable(query, 'notes')) throw new PackageError('The package holds no Anki collection.');
  const [ver, crt] = query('select ver, crt from col')[0] ?? [];
  const schema = num(ver);
  if (schema > MAX_SCHEMA)
    throw new PackageError(`The collection was written by a newer Anki (schema ${schema}); export it again with "Support older Anki versions" ticked.`);
  if (schema < MIN_SCHEMA) throw new PackageError(`The collection is in an old format (schema ${schema}) this import does not read.`);
  const { notetypes, decks } = schema >= 15 && hasTable(query, 'notetypes') ? currentModels(query) : legacyModels(query);
  const notes = query('select id, guid, mid, flds, tags from notes').map(([id, guid, mid, flds, tags]) => ({
    id: num(id),
    guid: str(guid),
    notetype: num(mid),
    fields: str(flds).split('\x1f'),
    tags: str(tags)
      .split(/\s+/)
      .filter((tag) => tag !== ''),
  }));
  const cards = query('select id, nid, did, ord, type, queue, due, ivl, reps, lapses, odue, odid, data from cards order by nid, ord').map(cardOf);
  const reviews = query('select cid, id, ease from revlog order by id').map(([cid, id, ease]) => ({ card: num(cid), at: num(id), ease: num(ease) }));
  return { schema, created: num(crt), notetypes, decks, notes, cards, reviews };
}

/** One file of the package's media list: the zip entry holding it, its name, and (current format) its size and SHA-1. */
export interface MediaEntry {
  /** The zip entry's name: "0", "1", … */
  entry: string;
  name: string;
  size: number | null;
  sha1: Uint8Array | null;
}

/**
 * The media list (legacy: JSON {"0": "name"}; current: protobuf MediaEntries, each entry name 1,
 * size 2, SHA-1 3 and optionally its zip entry's number 255, else its position).
 */
export function mediaEntries(bytes: Uint8Array, current: boolean): MediaEntry[] {
  if (!current) {
    return Object.entries(parseJsonObject(new TextDecoder().decode(bytes)))
      .filter(([entry, name]) => /^\d+$/.test(entry) && typeof name === 'string' && name !== '')
      .map(([entry, name]) => ({ entry, name: str(name), size: null, sha1: null }));
  }
  return repeatedBytes(readMessage(bytes), 1).map((raw, index) => {
    const message = readMessage(raw);
    const sha1 = bytesField(message, 3);
    return {
      entry: String(numberField(message, 255, index)),
      name: stringField(message, 1),
      size: numberField(message, 2, 0),
      sha1: sha1 && sha1.length === 20 ? sha1 : null,
    };
  });
}

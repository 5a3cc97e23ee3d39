// JSON backups: one deck or all decks in the shape storage keeps them (type 'deck', version 1
// records) inside a small wrapper, and read back from the wrapper, a bare deck record or a list of
// records. Reading validates the records and says which one is wrong and why. A backup also holds
// the decks' review logs (reviews:{deckId}), keyed by deck id; an unreadable log is left out.
import { isRecord } from '../../lib/schema';
import { DECK_VERSION, isLanguage, storedCards, type Deck, type StoredCard } from '../deck';
import { parseDeck } from '../storage';
import { parseReviews, toStored, type ReviewRecord, type StoredReviews } from '../srs/reviewLog';
import { ImportError, stripBom } from './delimited';
import type { ImportProblem } from './columns';
import { findJsonError } from './jsonSyntax';

export const BACKUP_TYPE = 'hearth-decks';

export interface Backup {
  type: typeof BACKUP_TYPE;
  version: 1;
  exportedAt: string;
  decks: (Omit<Deck, 'cards'> & { cards: StoredCard[] })[];
  /** Review logs by deck id; absent when no deck has one. */
  reviews?: Record<string, StoredReviews>;
}

/** The backup file: the decks, and the review logs of those that have one. */
export function writeBackup(decks: readonly Deck[], now: Date, reviews: Readonly<Record<string, ReviewRecord>> = {}): string {
  const logs: Record<string, StoredReviews> = {};
  for (const deck of decks) {
    const log = reviews[deck.id];
    if (log) logs[deck.id] = toStored(log);
  }
  const backup: Backup = { type: BACKUP_TYPE, version: 1, exportedAt: now.toISOString(), decks: decks.map(storedCards) };
  const text = JSON.stringify(backup, null, 2);
  if (Object.keys(logs).length === 0) return `${text}\n`;
  // The logs are long lists of short tuples: on one line they keep the file small. The decks
  // stay indented for people who read the file.
  return `${text.slice(0, -2)},\n  "reviews": ${JSON.stringify(logs)}\n}\n`;
}

export interface BackupResult {
  decks: Deck[];
  /** Each deck's review log, at the deck's position; null when it has none (or none readable). */
  reviews: (ReviewRecord | null)[];
  problems: ImportProblem[];
}

/** True when the text is (probably) JSON rather than delimited text. */
export function looksLikeJson(text: string): boolean {
  return /^\s*[[{]/.test(stripBom(text));
}

/** A value as a message shows it. */
const show = (value: unknown) => (value === undefined ? 'missing' : JSON.stringify(value));

/** The 1-based line of a character offset. */
function lineAt(text: string, offset: number): number {
  return (text.slice(0, offset).match(/\r\n|\n|\r/g) ?? []).length + 1;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    const found = findJsonError(text);
    if (!found) throw new ImportError('this is not valid JSON');
    throw new ImportError(`this is not valid JSON: ${found.message}`, lineAt(text, found.offset));
  }
}

/**
 * Decks from a backup. Each record must be an object with type 'deck', version 1 and a list of
 * cards; anything else is an error naming the record. Missing card ids and texts are filled in
 * as storage does; a record without an id gets a new one.
 */
export function readBackup(text: string, makeId: () => string): BackupResult {
  const source = stripBom(text);
  if (source.trim() === '') throw new ImportError('the backup is empty');
  const value = parseJson(source);
  let records: unknown[];
  let logs: Record<string, unknown> = {};
  if (Array.isArray(value)) records = value;
  else if (isRecord(value) && value.type === BACKUP_TYPE) {
    if (value.version !== 1) throw new ImportError(`this backup has version ${String(value.version)}; this app reads version 1`);
    if (!Array.isArray(value.decks)) throw new ImportError('this backup has no list of decks');
    records = value.decks;
    if (isRecord(value.reviews)) logs = value.reviews;
  } else if (isRecord(value)) records = [value];
  else throw new ImportError('a backup is a deck, a list of decks or a Hearth backup file');

  const decks: Deck[] = [];
  const reviews: (ReviewRecord | null)[] = [];
  const problems: ImportProblem[] = [];
  records.forEach((record, index) => {
    const where = `Deck ${index + 1}`;
    if (!isRecord(record)) throw new ImportError(`${where} is not a deck record`);
    const named = typeof record.name === 'string' && record.name.trim() !== '' ? `${where} (“${record.name.trim()}”)` : where;
    if (record.type !== 'deck') throw new ImportError(`${named} is not a deck: its type is ${show(record.type)}, not "deck"`);
    if (record.version !== DECK_VERSION) {
      throw new ImportError(`${named} has version ${show(record.version)}; this app reads version ${DECK_VERSION}`);
    }
    if (record.cards !== undefined && !Array.isArray(record.cards)) throw new ImportError(`${named}: its cards are not a list`);
    for (const side of ['sourceLang', 'targetLang'] as const) {
      if (record[side] !== undefined && !isLanguage(record[side])) {
        problems.push({ line: null, message: `${named}: the language ${JSON.stringify(record[side])} is not a language tag; the default is used` });
      }
    }
    const id = typeof record.id === 'string' && record.id !== '' ? record.id : makeId();
    const deck = parseDeck(record, id, makeId);
    if (!deck) throw new ImportError(`${named} could not be read`);
    decks.push(deck);
    const log = typeof record.id === 'string' && Object.hasOwn(logs, record.id) ? logs[record.id] : undefined;
    const parsed = log === undefined ? null : parseReviews(log);
    if (log !== undefined && !parsed) problems.push({ line: null, message: `${named}: its review log could not be read; the deck is imported without it` });
    reviews.push(parsed);
  });
  if (decks.length === 0) throw new ImportError('the backup holds no decks');
  return { decks, reviews, problems };
}

/**
 * The decks to save so nothing already stored is overwritten: a deck whose id is taken (by a
 * stored deck or an earlier deck of the same import) gets a new id. Cards keep theirs: they are
 * scoped to their deck.
 */
export function withFreshIds(decks: readonly Deck[], takenIds: Iterable<string>, makeId: () => string): Deck[] {
  const taken = new Set(takenIds);
  return decks.map((deck) => {
    let id = deck.id;
    while (taken.has(id) || id === '') id = makeId();
    taken.add(id);
    return id === deck.id ? deck : { ...deck, id };
  });
}

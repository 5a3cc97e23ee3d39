// The whole reading of an Anki package, step by step with progress: unzip, decompress, open the
// database (through the opener the caller gives: sql.js in the Worker, in tests), read, convert.
import { BUDGETS, checkCardCount, PackageError, type Budgets } from './budgets';
import { readCollection, type Query } from './collection';
import { convertCollection, type ConvertedCollection } from './convert';
import { unpack } from './unpack';

export interface OpenedDatabase {
  query: Query;
  close(): void;
}

export type OpenDatabase = (bytes: Uint8Array) => Promise<OpenedDatabase>;

export type Stage = 'unpacking' | 'opening' | 'reading' | 'converting';

export const STAGE_LABELS: Record<Stage, string> = {
  unpacking: 'Unpacking the package…',
  opening: 'Opening the collection…',
  reading: 'Reading notes, cards and reviews…',
  converting: 'Converting to Hearth decks…',
};

/** How far along each stage starts, out of 1. */
export const STAGE_PROGRESS: Record<Stage, number> = { unpacking: 0.05, opening: 0.3, reading: 0.55, converting: 0.8 };

export interface PackageResult extends ConvertedCollection {
  /** Media files the package carries that the import leaves out. */
  mediaFiles: number;
  /** Which database entry was read, e.g. collection.anki21b. */
  entry: string;
}

export async function readPackage(
  bytes: Uint8Array,
  openDatabase: OpenDatabase,
  makeId: () => string,
  now: Date,
  onStage: (stage: Stage) => void = () => {},
  budgets: Budgets = BUDGETS,
): Promise<PackageResult> {
  onStage('unpacking');
  const unpacked = unpack(bytes, budgets);
  onStage('opening');
  let database: OpenedDatabase;
  try {
    database = await openDatabase(unpacked.database);
  } catch (error) {
    if (error instanceof PackageError) throw error;
    throw new PackageError('The collection inside the package is not a database this import can open.');
  }
  try {
    let cards: number;
    try {
      cards = Number(database.query('select count(*) from cards')[0]?.[0] ?? 0);
    } catch {
      throw new PackageError('The package holds no Anki collection.');
    }
    checkCardCount(cards, budgets);
    onStage('reading');
    const collection = readCollection(database.query);
    onStage('converting');
    const converted = convertCollection(collection, makeId, now);
    return { ...converted, mediaFiles: unpacked.media.length, entry: unpacked.entry };
  } finally {
    database.close();
  }
}

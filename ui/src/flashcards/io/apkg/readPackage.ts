// The whole reading of an Anki package, step by step with progress: unzip, decompress, open the
// database (through the opener the caller gives: sql.js in the Worker, in tests), read, convert,
// then read the pictures and sounds the cards use (mediaFiles.ts) and give each card its files'
// references (media/ref.ts); a file not kept leaves its card without it, named in the result.
import { BUDGETS, checkCardCount, PackageError, type Budgets } from './budgets';
import { readCollection, type Query } from './collection';
import { convertCollection, type ConvertedCollection, type MediaUse } from './convert';
import { readMedia, type ImportedMediaFile, type MediaProblem } from './mediaFiles';
import { MAX_MEDIA_PER_CARD, type MediaKind, type MediaRef } from '../../media/ref';
import type { Deck } from '../../deck';
import { unpack } from './unpack';

export interface OpenedDatabase {
  query: Query;
  close(): void;
}

export type OpenDatabase = (bytes: Uint8Array) => Promise<OpenedDatabase>;

export type Stage = 'unpacking' | 'opening' | 'reading' | 'converting' | 'media';

export const STAGE_LABELS: Record<Stage, string> = {
  unpacking: 'Unpacking the package…',
  opening: 'Opening the collection…',
  reading: 'Reading notes, cards and reviews…',
  converting: 'Converting to Hearth decks…',
  media: 'Reading pictures and sounds…',
};

/** How far along each stage starts, out of 1. */
export const STAGE_PROGRESS: Record<Stage, number> = { unpacking: 0.05, opening: 0.25, reading: 0.45, converting: 0.65, media: 0.8 };

export interface PackageResult extends Omit<ConvertedCollection, 'mediaUses'> {
  /** Media files the package's list holds (used by a card or not). */
  mediaFiles: number;
  /** The files the cards use that the import keeps (for the media store), and those it does not, each with why. */
  media: { files: ImportedMediaFile[]; problems: MediaProblem[] };
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
  let converted: ConvertedCollection;
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
    converted = convertCollection(collection, makeId, now);
  } finally {
    database.close();
  }
  onStage('media');
  const { mediaUses, ...rest } = converted;
  const wanted = new Map<string, MediaKind>();
  for (const uses of mediaUses.values()) for (const use of uses) if (!wanted.has(use.name)) wanted.set(use.name, use.kind);
  const reading = await readMedia(bytes, unpacked.media, wanted, unpacked.compressedMedia, budgets);
  const decks = rest.decks.map((deck) => withMedia(deck, mediaUses, reading.files));
  return {
    ...rest,
    decks,
    mediaFiles: unpacked.media.length,
    media: { files: [...reading.files.values()], problems: reading.problems },
    entry: unpacked.entry,
  };
}

/** The deck with each card's references to the files kept (each file once per field, at most MAX_MEDIA_PER_CARD). */
function withMedia(deck: Deck, uses: ReadonlyMap<string, MediaUse[]>, files: ReadonlyMap<string, ImportedMediaFile>): Deck {
  return {
    ...deck,
    cards: deck.cards.map((card) => {
      const list = uses.get(card.id);
      if (!list) return card;
      const media: MediaRef[] = [];
      const seen = new Set<string>();
      for (const use of list) {
        const file = files.get(use.name);
        if (!file || file.kind !== use.kind || media.length >= MAX_MEDIA_PER_CARD) continue;
        const key = `${use.field}:${file.hash}`;
        if (seen.has(key)) continue;
        seen.add(key);
        media.push({ hash: file.hash, name: use.name.slice(0, 255), kind: use.kind, field: use.field });
      }
      return media.length > 0 ? { ...card, media } : card;
    }),
  };
}

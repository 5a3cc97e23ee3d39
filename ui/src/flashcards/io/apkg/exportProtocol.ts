// The messages between the page and the package-writing Worker (exportWorker.ts).
import type { Deck } from '../../deck';
import type { ExportReviews } from './exportRows';

export interface ExportRequest {
  deck: Deck;
  reviews: ExportReviews;
  /** The clock the export uses (epoch ms). */
  now: number;
  /** The deck's media files that are on this device, by hash. */
  files: [hash: string, bytes: ArrayBuffer][];
}

/** What the package holds, for the words the page says when it is written. */
export interface PackageSummary {
  notes: number;
  cards: number;
  reviews: number;
  files: number;
  /** Pictures and sounds the cards refer to that this device does not hold (left out). */
  missing: number;
  /** Cards without text on a side (left out). */
  skipped: number;
}

export type ExportAnswer = { type: 'done'; bytes: ArrayBuffer; summary: PackageSummary } | { type: 'error'; message: string };

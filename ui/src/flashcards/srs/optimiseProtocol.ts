// The messages between the progress page and the optimiser's Worker (optimiseWorker.ts).
import type { ReviewEntry, Seed } from './reviewLog';
import type { Outcome } from './optimise';

/**
 * The module's size as shipped (fsrs-browser 5.2.0; a test checks it): the download's progress,
 * whatever the encoding the server sent it in (Content-Length is then the compressed size).
 */
export const WASM_BYTES = 1_688_056;

/** What the page sends: the deck's log and seeds, and the parameters in use (to compare against). */
export interface OptimiseRequest {
  log: readonly ReviewEntry[];
  seeds: Readonly<Record<string, Seed>>;
  current: readonly number[];
}

/** Where the optimiser is: fetching its module (bytes so far of total, 0 when unknown), fitting (pass of passes), checking the fit. */
export type OptimiseStage =
  | { stage: 'download'; loaded: number; total: number }
  | { stage: 'prepare'; reviews: number }
  | { stage: 'fit'; pass: number; passes: number }
  | { stage: 'check' };

export type OptimiseAnswer = ({ type: 'progress' } & OptimiseStage) | { type: 'done'; outcome: Outcome; seconds: number } | { type: 'error'; message: string };

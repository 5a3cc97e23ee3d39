// The messages between the import dialog and the package Worker.
import type { PackageResult, Stage } from './readPackage';

export interface WorkerRequest {
  bytes: ArrayBuffer;
  /** The clock the import uses (epoch ms). */
  now: number;
}

export type WorkerAnswer = { type: 'stage'; stage: Stage } | { type: 'done'; result: PackageResult } | { type: 'error'; message: string };

// The Worker that reads an Anki package off the main thread: it gets the file's bytes, reports
// each stage, and answers with the decks and review logs to import (and the media files, handed
// over rather than copied) or the reason it cannot.
import { newId } from '../../uuid';
import { PackageError } from './budgets';
import { readPackage } from './readPackage';
import { openWithSqlJs } from './sqlite';
import type { WorkerAnswer, WorkerRequest } from './workerProtocol';

const post = (answer: WorkerAnswer, transfer: Transferable[] = []) =>
  (self as unknown as { postMessage(message: WorkerAnswer, transfer: Transferable[]): void }).postMessage(answer, transfer);

self.onmessage = async (event: MessageEvent<WorkerRequest>) => {
  const { bytes, now } = event.data;
  try {
    const result = await readPackage(new Uint8Array(bytes), openWithSqlJs, newId, new Date(now), (stage) => post({ type: 'stage', stage }));
    post(
      { type: 'done', result },
      result.media.files.map((file) => file.bytes),
    );
  } catch (error) {
    const message =
      error instanceof PackageError ? error.message : `The package could not be read (${error instanceof Error ? error.message : String(error)}).`;
    post({ type: 'error', message });
  }
};

// Reads an Anki package chosen in the import dialog, in a Worker (so a large collection never
// freezes the page), reporting its stages; resolves with the decks and logs or rejects with the
// reason in words.
import { checkFileSize, PackageError } from './budgets';
import type { PackageResult, Stage } from './readPackage';
import type { WorkerAnswer, WorkerRequest } from './workerProtocol';

/** A file the import reads as an Anki package, by its name. */
export const isAnkiPackageName = (name: string) => /\.(apkg|colpkg)$/i.test(name);

export interface PackageImport {
  result: Promise<PackageResult>;
  cancel(): void;
}

export function importPackage(file: Blob, onStage: (stage: Stage) => void, now = Date.now()): PackageImport {
  const worker = new Worker(new URL('./importWorker.ts', import.meta.url), { type: 'module', name: 'anki-import' });
  let settle: ((error: Error) => void) | null = null;
  const result = new Promise<PackageResult>((resolve, reject) => {
    settle = reject;
    worker.onmessage = (event: MessageEvent<WorkerAnswer>) => {
      const answer = event.data;
      if (answer.type === 'stage') onStage(answer.stage);
      else {
        worker.terminate();
        if (answer.type === 'done') resolve(answer.result);
        else reject(new PackageError(answer.message));
      }
    };
    worker.onerror = (event) => {
      worker.terminate();
      reject(new PackageError(`The package reader stopped (${event.message || 'the Worker could not start'}).`));
    };
    try {
      checkFileSize(file.size);
    } catch (error) {
      worker.terminate();
      reject(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    file.arrayBuffer().then(
      (bytes) => worker.postMessage({ bytes, now } satisfies WorkerRequest, [bytes]),
      () => {
        worker.terminate();
        reject(new PackageError('The file could not be read.'));
      },
    );
  });
  return {
    result,
    cancel() {
      worker.terminate();
      settle?.(new PackageError('The import was cancelled.'));
    },
  };
}

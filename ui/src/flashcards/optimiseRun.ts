// Runs "Optimise my schedule" in its own Worker (srs/optimiseWorker.ts), started only when the
// learner asks, so neither the optimiser nor its WebAssembly is part of loading any page; reports
// its stages and resolves with the outcome, or rejects with the reason in words. Cancel ends the
// Worker at once.
import type { Outcome } from './srs/optimise';
import type { OptimiseAnswer, OptimiseRequest, OptimiseStage } from './srs/optimiseProtocol';

export interface OptimiseRun {
  result: Promise<{ outcome: Outcome; seconds: number }>;
  cancel(): void;
}

export class OptimiseCancelled extends Error {
  constructor() {
    super('Optimising was cancelled: the schedule is as it was.');
  }
}

export function optimiseSchedule(request: OptimiseRequest, onStage: (stage: OptimiseStage) => void): OptimiseRun {
  const worker = new Worker(new URL('./srs/optimiseWorker.ts', import.meta.url), { type: 'module', name: 'fsrs-optimiser' });
  let settle: ((error: Error) => void) | null = null;
  const result = new Promise<{ outcome: Outcome; seconds: number }>((resolve, reject) => {
    settle = reject;
    worker.onmessage = (event: MessageEvent<OptimiseAnswer>) => {
      const answer = event.data;
      if (answer.type === 'progress') {
        onStage(answer);
        return;
      }
      worker.terminate();
      if (answer.type === 'done') resolve({ outcome: answer.outcome, seconds: answer.seconds });
      else reject(new Error(`The optimiser stopped: ${answer.message}`));
    };
    worker.onerror = (event) => {
      worker.terminate();
      reject(new Error(`The optimiser stopped (${event.message || 'its Worker could not start'}).`));
    };
    worker.postMessage(request);
  });
  return {
    result,
    cancel() {
      worker.terminate();
      settle?.(new OptimiseCancelled());
    },
  };
}

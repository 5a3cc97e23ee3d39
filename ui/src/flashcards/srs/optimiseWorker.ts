// The optimiser's Worker: started only when the learner asks for "Optimise my schedule". It turns
// the deck's log into training items, fetches FSRS's optimiser (WebAssembly, about 1.7 MB, not in
// the service worker's precache), fits the parameters on this one thread, and checks the fit
// against the parameters in use, reporting each stage. The page cancels by ending the Worker.
/// <reference lib="webworker" />
import wasmUrl from 'fsrs-browser/fsrs_browser_bg.wasm?url';
import { computeParams, startOptimiser } from './fsrsWasm';
import { canFit, decide, trainingSet } from './optimise';
import { WASM_BYTES, type OptimiseAnswer, type OptimiseRequest } from './optimiseProtocol';

declare const self: DedicatedWorkerGlobalScope;

const post = (answer: OptimiseAnswer) => self.postMessage(answer);

/** fsrs-rs trains for this many passes over the items (its default), logging each as "epoch: N". */
const PASSES = 5;

// The optimiser logs each pass to the console: that is its progress on one thread.
for (const level of ['log', 'info', 'debug'] as const) {
  console[level] = (...parts: unknown[]) => {
    const match = /epoch:\s*(\d+)/.exec(parts.map(String).join(' '));
    if (match) post({ type: 'progress', stage: 'fit', pass: Math.min(PASSES, Number(match[1])), passes: PASSES });
  };
}

async function download(): Promise<Uint8Array> {
  const response = await fetch(wasmUrl);
  if (!response.ok || !response.body) throw new Error(`The optimiser could not be downloaded (HTTP ${response.status}).`);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let loaded = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.byteLength;
    post({ type: 'progress', stage: 'download', loaded, total: Math.max(WASM_BYTES, loaded) });
  }
  const bytes = new Uint8Array(loaded);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

self.onmessage = (event: MessageEvent<OptimiseRequest>) => {
  const started = performance.now();
  const { log, seeds, current } = event.data;
  void (async () => {
    try {
      const set = trainingSet(log, seeds);
      post({ type: 'progress', stage: 'prepare', reviews: set.count });
      let fitted: number[] | null = null;
      if (canFit(set.count)) {
        startOptimiser(await download());
        post({ type: 'progress', stage: 'fit', pass: 0, passes: PASSES });
        // Let the message go before the fit holds this thread.
        await new Promise((resolve) => setTimeout(resolve, 0));
        fitted = computeParams(set.ratings, set.deltas, set.lengths);
        post({ type: 'progress', stage: 'check' });
      }
      post({ type: 'done', outcome: decide(set, current, fitted), seconds: (performance.now() - started) / 1000 });
    } catch (error) {
      post({ type: 'error', message: error instanceof Error ? error.message : String(error) });
    }
  })();
};

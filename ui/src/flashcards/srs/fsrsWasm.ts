// FSRS's own optimiser (fsrs-rs, from the fsrs-browser package) run on one thread. The package is
// built for threads (wasm-bindgen-rayon): its module imports a *shared* memory, which browsers
// only allow on cross-origin isolated pages. Its code also runs on one thread (rayon falls back to
// the calling thread when no pool was started), so we load it with an ordinary memory: the import's
// "shared" flag is cleared in the bytes (same length, nothing else touched) before compiling. The
// site then needs no cross-origin isolation. Used by the Worker and by the Node test alike.
import { initSync, Fsrs } from 'fsrs-browser';

/** Reads one unsigned LEB128 number at `at.i`, moving past it. */
function leb(bytes: Uint8Array, at: { i: number }): number {
  let result = 0;
  let shift = 0;
  for (;;) {
    const byte = bytes[at.i++];
    if (byte === undefined) throw new Error('The optimiser’s module is cut short.');
    result += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return result;
    shift += 7;
  }
}

/** Skips a limits entry (flags, minimum, maximum when flagged); returns the flags' offset. */
function skipLimits(bytes: Uint8Array, at: { i: number }): number {
  const flagsAt = at.i;
  const flags = bytes[at.i++] ?? 0;
  leb(bytes, at);
  if (flags & 1) leb(bytes, at);
  return flagsAt;
}

/**
 * The module's bytes with its imported memory made unshared (in place; returns whether a shared
 * memory import was found). Walks the import section only; throws on a malformed module.
 */
export function unshareMemory(bytes: Uint8Array): boolean {
  if (bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) throw new Error('The optimiser’s file is not a WebAssembly module.');
  const at = { i: 8 };
  while (at.i < bytes.length) {
    const id = bytes[at.i++];
    const size = leb(bytes, at);
    const end = at.i + size;
    if (id === 2) {
      const count = leb(bytes, at);
      for (let n = 0; n < count; n += 1) {
        // The module's and the field's names (read the length first: `at.i += leb()` would add to the old place).
        const moduleName = leb(bytes, at);
        at.i += moduleName;
        const fieldName = leb(bytes, at);
        at.i += fieldName;
        const kind = bytes[at.i++];
        if (kind === 0) leb(bytes, at);
        else if (kind === 1) {
          at.i += 1; // the table's element type
          skipLimits(bytes, at);
        } else if (kind === 2) {
          const flagsAt = skipLimits(bytes, at);
          const flags = bytes[flagsAt] ?? 0;
          if (flags & 2) {
            bytes[flagsAt] = flags & ~2;
            return true;
          }
        } else if (kind === 3) at.i += 2;
        else if (kind === 4) {
          at.i += 1;
          leb(bytes, at);
        } else throw new Error('The optimiser’s module has an import of an unknown kind.');
      }
      return false;
    }
    at.i = end;
  }
  return false;
}

/** The module's initial and largest memory, in 64 KiB pages, as fsrs-browser declares it. */
const MEMORY = { initial: 18, maximum: 16384 };

let ready = false;

/** Compiles and starts the optimiser from its module's bytes (once per Worker). */
export function startOptimiser(bytes: Uint8Array): void {
  if (ready) return;
  const copy = new Uint8Array(bytes);
  unshareMemory(copy);
  initSync({ module: copy, memory: new WebAssembly.Memory(MEMORY) });
  ready = true;
}

/**
 * FSRS-6's 21 parameters fitted to the training items (flat, as optimise.ts's trainingSet gives
 * them), starting from FSRS's defaults, with short-term memory (same-day reviews) modelled as
 * Anki does. Blocks the thread it runs on: call it in a Worker.
 */
export function computeParams(ratings: Uint32Array, deltas: Uint32Array, lengths: Uint32Array): number[] {
  if (!ready) throw new Error('The optimiser was not started.');
  // computeParameters takes the model by value (it is freed by the call).
  return Array.from(new Fsrs().computeParameters(ratings, deltas, lengths, undefined, true));
}

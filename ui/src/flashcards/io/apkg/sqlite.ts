// Opens an SQLite database with sql.js, loaded only when a package is imported or written. Its WebAssembly
// build is served from our own dist (the server's Content-Security-Policy lets our own scripts
// compile WebAssembly with 'wasm-unsafe-eval', and serves it as application/wasm).
import type { SqlJsStatic } from 'sql.js';
import wasmUrl from 'sql.js/dist/sql-wasm-browser.wasm?url';
import { PackageError } from './budgets';
import type { OpenDatabase } from './readPackage';
import { openWith } from './sqlJsDatabase';

let engine: Promise<SqlJsStatic> | null = null;

async function load(): Promise<SqlJsStatic> {
  if (typeof WebAssembly === 'undefined') throw new PackageError(`${NO_WEBASSEMBLY}.`);
  const { default: init } = await import('sql.js/dist/sql-wasm-browser.js');
  try {
    return await init({ locateFile: () => wasmUrl });
  } catch (error) {
    throw new PackageError(`${NO_WEBASSEMBLY} (${error instanceof Error ? error.message : String(error)}).`);
  }
}

const NO_WEBASSEMBLY = 'Reading an Anki package needs WebAssembly, which this browser did not run';

/** sql.js, loaded once; a load that failed (offline, blocked) is tried again on the next use. */
export function sqlJs(): Promise<SqlJsStatic> {
  engine ??= load().catch((error: unknown) => {
    engine = null;
    throw error;
  });
  return engine;
}

export const openWithSqlJs: OpenDatabase = async (bytes) => openWith(await sqlJs(), bytes);

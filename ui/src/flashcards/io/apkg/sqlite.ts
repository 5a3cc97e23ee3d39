// Opens an SQLite database with sql.js, loaded only when a package is imported. The WebAssembly
// build is served from our own dist; where the page's Content-Security-Policy forbids compiling
// WebAssembly (it needs 'wasm-unsafe-eval' in script-src), the asm.js build (pure JavaScript,
// larger and slower) is used instead.
import type { SqlJsStatic } from 'sql.js';
import wasmUrl from 'sql.js/dist/sql-wasm-browser.wasm?url';
import type { OpenDatabase } from './readPackage';
import { openWith } from './sqlJsDatabase';

let engine: Promise<{ sql: SqlJsStatic; build: 'wasm' | 'asm' }> | null = null;

async function load(): Promise<{ sql: SqlJsStatic; build: 'wasm' | 'asm' }> {
  try {
    const { default: init } = await import('sql.js/dist/sql-wasm-browser.js');
    return { sql: await init({ locateFile: () => wasmUrl }), build: 'wasm' };
  } catch {
    const { default: init } = await import('sql.js/dist/sql-asm.js');
    return { sql: await init(), build: 'asm' };
  }
}

/** Which sql.js build this context ended up with (for the benchmark's report). */
export async function sqliteBuild(): Promise<'wasm' | 'asm'> {
  engine ??= load();
  return (await engine).build;
}

export const openWithSqlJs: OpenDatabase = async (bytes) => {
  engine ??= load();
  const { sql } = await engine;
  return openWith(sql, bytes);
};

// Opens an SQLite database with sql.js, loaded only when a package is imported. Its WebAssembly
// build is served from our own dist (the server's Content-Security-Policy lets our own scripts
// compile WebAssembly with 'wasm-unsafe-eval', and serves it as application/wasm).
import type { SqlJsStatic } from 'sql.js';
import wasmUrl from 'sql.js/dist/sql-wasm-browser.wasm?url';
import type { OpenDatabase } from './readPackage';
import { openWith } from './sqlJsDatabase';

let engine: Promise<SqlJsStatic> | null = null;

async function load(): Promise<SqlJsStatic> {
  const { default: init } = await import('sql.js/dist/sql-wasm-browser.js');
  return init({ locateFile: () => wasmUrl });
}

export const openWithSqlJs: OpenDatabase = async (bytes) => {
  engine ??= load();
  return openWith(await engine, bytes);
};

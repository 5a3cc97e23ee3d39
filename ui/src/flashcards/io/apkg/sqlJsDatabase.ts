// An Anki database opened with a loaded sql.js. Anki declares some columns with its own "unicase"
// collation, which sql.js cannot register, and SQLite refuses to read such tables at all; the
// declarations are dropped from the in-memory copy's schema first (the rows are only read, and
// never looked up through those indexes).
import type { SqlJsStatic } from 'sql.js';
import type { OpenedDatabase } from './readPackage';

export function openWith(sql: SqlJsStatic, bytes: Uint8Array): OpenedDatabase {
  let database = new sql.Database(bytes);
  const uses = database.exec("select count(*) from sqlite_master where sql like '%collate unicase%'")[0]?.values[0]?.[0];
  if (typeof uses === 'number' && uses > 0) {
    database.exec(
      "pragma writable_schema = on; update sqlite_master set sql = replace(replace(sql, 'COLLATE unicase', ''), 'collate unicase', '') where sql like '%collate unicase%'; pragma writable_schema = off;",
    );
    const patched = database.export();
    database.close();
    database = new sql.Database(patched);
  }
  const opened = database;
  return { query: (statement) => opened.exec(statement).flatMap((result) => result.values), close: () => opened.close() };
}

// A real CalDAV server for the editor's CalDAV picker: Radicale (from PyPI, in the venv that
// tests/caldav/venv.sh makes; `HEARTH_RADICALE` names its program) on a free loopback port, with a
// plain htpasswd login and its collections in a throw-away folder, seeded as a calendar app would
// (MKCALENDAR, PUT). A suite without Radicale fails: it is never skipped.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

export const RADICALE_USER = 'alice';
export const RADICALE_PASSWORD = 'correct horse battery';
const PROGRAM = process.env.HEARTH_RADICALE ?? resolve(import.meta.dirname, '../../../target/caldav-venv/bin/radicale');

export interface Radicale {
  url: (path?: string) => string;
  mkcalendar: (path: string, name: string, color: string, components: string[]) => Promise<void>;
  put: (path: string, ics: string) => Promise<void>;
}

const freePort = () =>
  new Promise<number>((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? done(address.port) : fail(new Error('no port'))));
    });
  });

/** Radicale for a suite, started before its tests (then `seed` runs) and stopped after them. */
export function useRadicale(seed: (radicale: Radicale) => Promise<void>): () => Radicale {
  let child: ChildProcess | undefined;
  let dir: string | undefined;
  let radicale: Radicale | undefined;
  beforeAll(async () => {
    if (!existsSync(PROGRAM)) throw new Error(`Radicale is not installed at ${PROGRAM}: run bash tests/caldav/venv.sh (make e2e does)`);
    dir = mkdtempSync(join(tmpdir(), 'hearth-radicale-'));
    const port = await freePort();
    writeFileSync(join(dir, 'users'), `${RADICALE_USER}:${RADICALE_PASSWORD}\n`);
    writeFileSync(
      join(dir, 'config'),
      [
        '[server]',
        `hosts = 127.0.0.1:${port}`,
        '[auth]',
        'type = htpasswd',
        `htpasswd_filename = ${join(dir, 'users')}`,
        'htpasswd_encryption = plain',
        'delay = 0',
        '[rights]',
        'type = owner_only',
        '[storage]',
        `filesystem_folder = ${join(dir, 'collections')}`,
        '[logging]',
        'level = warning',
        '',
      ].join('\n'),
    );
    child = spawn(PROGRAM, ['--config', join(dir, 'config')], { stdio: ['ignore', 'ignore', 'inherit'] });
    const base = `http://127.0.0.1:${port}`;
    const basic = `Basic ${Buffer.from(`${RADICALE_USER}:${RADICALE_PASSWORD}`).toString('base64')}`;
    const send = async (method: string, path: string, body: string, type: string) => {
      const response = await fetch(`${base}${path}`, { method, headers: { Authorization: basic, 'Content-Type': type }, body });
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status}`);
    };
    radicale = {
      url: (path = '/') => `${base}${path}`,
      mkcalendar: (path, name, color, components) =>
        send(
          'MKCALENDAR',
          path,
          `<?xml version="1.0" encoding="utf-8"?><C:mkcalendar xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:A="http://apple.com/ns/ical/"><D:set><D:prop><D:displayname>${name}</D:displayname><A:calendar-color>${color}</A:calendar-color><C:supported-calendar-component-set>${components.map((c) => `<C:comp name="${c}"/>`).join('')}</C:supported-calendar-component-set></D:prop></D:set></C:mkcalendar>`,
          'application/xml',
        ),
      put: (path, ics) => send('PUT', path, ics, 'text/calendar'),
    };
    const deadline = Date.now() + 20_000;
    for (;;) {
      try {
        await fetch(base);
        break;
      } catch {
        if (Date.now() > deadline) throw new Error('Radicale did not answer within 20 s');
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    await seed(radicale);
  });
  afterAll(() => {
    child?.kill();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    if (!radicale) throw new Error('Radicale not started');
    return radicale;
  };
}

// Starts the real hearth binary on a loopback port it picks itself, with a throw-away data directory.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

export interface RunningServer {
  url: string;
  dataDir: string;
  output: () => string;
  stop: () => Promise<void>;
}

export const HEARTH_BIN = process.env.HEARTH_BIN ?? resolve(import.meta.dirname, '../../../target/release/hearth');

/**
 * The address the server logs once it listens ("listening on http://ADDR" on stderr); it binds
 * port 0 itself, so no other process can take the port between choosing and binding it.
 */
function listeningAddress(child: ChildProcess, output: () => string): Promise<string> {
  return new Promise((resolveAddress, reject) => {
    let seen = '';
    const timer = setTimeout(() => fail(new Error(`hearth logged no listening address:\n${output()}`)), 15_000);
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      const found = /listening on (http:\/\/\S+)/.exec(seen);
      if (found?.[1]) done(() => resolveAddress(found[1] ?? ''));
    };
    const onExit = (code: number | null) => fail(new Error(`hearth exited with ${code}:\n${output()}`));
    const done = (settle: () => void) => {
      clearTimeout(timer);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      settle();
    };
    const fail = (error: Error) => done(() => reject(error));
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

function realBin(): Record<string, string> {
  const bin = process.env.HEARTH_REAL_BIN;
  return bin ? { HEARTH_REAL_BIN: resolve(bin) } : {};
}

/** Runs `hearth serve` with extra flags and environment; resolves once it listens. */
export async function startServer(args: string[] = [], env: Record<string, string> = {}): Promise<RunningServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-e2e-'));
  let log = '';
  const child = spawn(HEARTH_BIN, ['serve', '--listen', '127.0.0.1:0', '--data-dir', dataDir, ...args], {
    // info: the listening line is logged at that level.
    // HEARTH_REAL_BIN: the binary behind e2e/support/standin.mjs, when HEARTH_BIN is that stand-in.
    env: { PATH: process.env.PATH ?? '', HEARTH_LOG: 'info', ...realBin(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const url = await listeningAddress(child, () => log);
  return {
    url,
    dataDir,
    output: () => log,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * One server for a test file, started before its tests and stopped after them; returns the
 * address of a path on it.
 */
export function useServer(args: string[] = [], env: Record<string, string> = {}): (path?: string) => string {
  let server: RunningServer | undefined;
  beforeAll(async () => {
    server = await startServer(args, env);
  });
  afterAll(async () => {
    await server?.stop();
  });
  return (path = '') => {
    if (!server) throw new Error('server not started');
    return `${server.url}${path}`;
  };
}

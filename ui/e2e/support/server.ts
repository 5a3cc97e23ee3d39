// Starts the real hearth binary on a free loopback port with a throw-away data directory.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
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

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

async function waitForHealth(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`hearth exited with ${child.exitCode}:\n${output()}`);
    }
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`hearth did not become healthy:\n${output()}`);
}

/** Runs `hearth serve` with extra flags and environment; resolves once /healthz answers. */
export async function startServer(
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<RunningServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-e2e-'));
  let log = '';
  const child = spawn(HEARTH_BIN, ['serve', '--listen', `127.0.0.1:${port}`, '--data-dir', dataDir, ...args], {
    env: { PATH: process.env.PATH ?? '', HEARTH_LOG: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  await waitForHealth(url, child, () => log);
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

#!/usr/bin/env node
// A stand-in for the hearth binary that serves this checkout's ui/dist, for measuring and testing
// a UI build without building the binary again (the release binary embeds the UI it was built
// with). It takes `hearth serve`'s command line, runs the real binary (HEARTH_REAL_BIN) with it on
// a loopback port of its own, and answers like hearth does: the API, hosted feeds and the avatar
// from the real server; the app's files from ui/dist (precompressed copies, the same cache and
// security headers); and the app's pages as the real server's index.html would be with this build,
// its profile and sync data blocks and its title taken from the real server's answer.
//   npm run build && HEARTH_BIN=e2e/support/standin.mjs HEARTH_REAL_BIN=../target/release/hearth npm run e2e
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { resolve } from 'node:path';

const DIST = resolve(import.meta.dirname, '../../dist');
const REAL_BIN = process.env.HEARTH_REAL_BIN;
if (!REAL_BIN) {
  console.error('standin: set HEARTH_REAL_BIN to a hearth binary');
  process.exit(2);
}
if (!existsSync(resolve(DIST, 'index.html'))) {
  console.error(`standin: ${DIST}/index.html is missing: run npm run build`);
  process.exit(2);
}

// `serve --listen ADDR ...`: our address is the one asked for, the real server's a free port.
const args = process.argv.slice(2);
const listenAt = args.indexOf('--listen');
const [host, port] = listenAt >= 0 ? (args[listenAt + 1] ?? '127.0.0.1:0').split(':') : ['127.0.0.1', '8080'];
const realArgs = [...args];
if (listenAt >= 0) realArgs[listenAt + 1] = '127.0.0.1:0';
else realArgs.push('--listen', '127.0.0.1:0');

const real = spawn(REAL_BIN, realArgs, { env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
real.stdout.pipe(process.stdout);
// The real server's log goes to stdout: its "listening on" line must not be taken for ours.
real.stderr.pipe(process.stdout);
real.on('exit', (code) => {
  console.error(`standin: hearth exited with ${String(code)}`);
  process.exit(code ?? 1);
});

const realOrigin = await new Promise((resolveOrigin) => {
  let seen = '';
  const onData = (chunk) => {
    seen += chunk.toString();
    const found = /listening on http:\/\/(\S+)/.exec(seen);
    if (found) {
      real.stderr.off('data', onData);
      resolveOrigin(found[1]);
    }
  };
  real.stderr.on('data', onData);
});
const [realHost, realPort] = realOrigin.split(':');

/** A request passed to the real server as it came, its answer passed back as it came. */
function proxy(req, res) {
  const upstream = httpRequest({ host: realHost, port: realPort, method: req.method, path: req.url, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => {
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
  req.pipe(upstream);
}

/** The real server's answer for a path, read whole. */
function fetchReal(path, headers) {
  return new Promise((resolveAnswer, reject) => {
    const ask = httpRequest({ host: realHost, port: realPort, method: 'GET', path, headers }, (answer) => {
      const chunks = [];
      answer.on('data', (c) => chunks.push(c));
      answer.on('end', () => resolveAnswer({ status: answer.statusCode ?? 502, headers: answer.headers, body: Buffer.concat(chunks).toString() }));
    });
    ask.on('error', reject);
    ask.end();
  });
}

// The headers every answer of hearth carries (the security policy and its friends).
const SECURITY = [
  'content-security-policy',
  'x-content-type-options',
  'referrer-policy',
  'x-frame-options',
  'cross-origin-opener-policy',
  'permissions-policy',
];
const security = await fetchReal('/healthz', {}).then((a) => Object.fromEntries(SECURITY.flatMap((h) => (a.headers[h] ? [[h, a.headers[h]]] : []))));

const TYPES = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  json: 'application/json',
  webmanifest: 'application/manifest+json',
  svg: 'image/svg+xml',
  png: 'image/png',
  txt: 'text/plain; charset=utf-8',
};

function notFound(res) {
  res.writeHead(404, { ...security, 'content-type': 'text/plain; charset=utf-8' });
  res.end('Not found\n');
}

/** A file of the build, as site/assets.rs serves it. */
function serveFile(req, res, path) {
  const file = resolve(DIST, `.${path}`);
  if (!file.startsWith(`${DIST}/`) || path.endsWith('.br') || path.endsWith('.gz') || path === '/index.html') return notFound(res);
  if (!existsSync(file) || !statSync(file).isFile()) return notFound(res);
  const accepted = String(req.headers['accept-encoding'] ?? '');
  const encoding = ['br', 'gzip'].find((e) => accepted.includes(e) && existsSync(`${file}.${e === 'br' ? 'br' : 'gz'}`));
  const body = readFileSync(encoding ? `${file}.${encoding === 'br' ? 'br' : 'gz'}` : file);
  const ext = path.split('.').pop() ?? '';
  res.writeHead(200, {
    ...security,
    'content-type': TYPES[ext] ?? 'application/octet-stream',
    'cache-control': path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
    vary: 'Accept-Encoding',
    ...(encoding ? { 'content-encoding': encoding } : {}),
    'content-length': body.length,
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** An app page: this build's index.html with what the real server writes into its own. */
async function servePage(req, res) {
  // Asked as a fresh, uncompressed page: its body is rewritten.
  const headers = Object.fromEntries(Object.entries(req.headers).filter(([h]) => !['host', 'if-none-match', 'accept-encoding'].includes(h)));
  const answer = await fetchReal(req.url ?? '/', headers);
  if (!String(answer.headers['content-type'] ?? '').startsWith('text/html')) {
    res.writeHead(answer.status, answer.headers);
    return res.end(answer.body);
  }
  const blocks = answer.body.match(/<script type="application\/json" id="hearth-[^"]*">.*?<\/script>/gs) ?? [];
  const title = /<title>.*?<\/title>/s.exec(answer.body)?.[0];
  let html = readFileSync(resolve(DIST, 'index.html'), 'utf8');
  if (title) html = html.replace(/<title>.*?<\/title>/s, title);
  html = html.replace('</head>', `${blocks.join('\n  ')}\n  </head>`);
  const out = Object.fromEntries(Object.entries(answer.headers).filter(([h]) => !['etag', 'content-length', 'date', 'connection', 'keep-alive'].includes(h)));
  res.writeHead(answer.status, { ...out, 'content-length': Buffer.byteLength(html) });
  res.end(req.method === 'HEAD' ? undefined : html);
}

const server = createServer((req, res) => {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  const ours = !/^\/(api|cal|avatar|healthz|readyz)(\/|$)/.test(path);
  if (!ours || (req.method !== 'GET' && req.method !== 'HEAD')) return proxy(req, res);
  if ((path.split('/').pop() ?? '').includes('.')) return serveFile(req, res, path);
  servePage(req, res).catch(() => {
    if (!res.headersSent) res.writeHead(502);
    res.end();
  });
});
server.listen(Number(port), host, () => {
  const address = server.address();
  console.error(`standin: listening on http://${address.address}:${address.port} (hearth at ${realOrigin}, app from ${DIST})`);
});

const stop = () => {
  server.close();
  real.removeAllListeners('exit');
  real.once('exit', () => process.exit(0));
  real.kill('SIGTERM');
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

// Precompresses the built UI (brotli and gzip, at their highest levels) so the server never
// compresses static files per request. A copy is kept only when it is smaller.
// Then writes ui/embed/, what the binary embeds (src/site/assets.rs): each file once. A file with a
// brotli copy goes in as that copy only (the server makes the gzip copy or the plain file from it
// for the rare client that refuses brotli); any other file as it is. ui/dist keeps all three forms
// for what serves it from disk (bench/server.sh's nginx, the e2e stand-in). The files are hard
// links into ui/dist, so the second tree costs no disk.
import { copyFileSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = new URL('../dist/', import.meta.url).pathname;
const embed = new URL('../embed/', import.meta.url).pathname;
const compressible = /\.(js|mjs|css|html|svg|json|webmanifest|txt|xml|map|wasm)$/;
let files = 0;
let saved = 0;

function walk(dir, visit) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, visit);
    else visit(path, name);
  }
}

walk(root, (path, name) => {
  if (!compressible.test(name) || name === 'index.html') return;
  const data = readFileSync(path);
  const br = brotliCompressSync(data, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length },
  });
  const gz = gzipSync(data, { level: 9 });
  if (br.length < data.length) writeFileSync(`${path}.br`, br);
  if (gz.length < data.length) writeFileSync(`${path}.gz`, gz);
  files += 1;
  saved += data.length - Math.min(br.length, data.length);
});

function place(from) {
  const to = join(embed, relative(root, from));
  mkdirSync(dirname(to), { recursive: true });
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
  }
  return statSync(from).size;
}

rmSync(embed, { recursive: true, force: true });
let embedded = 0;
walk(root, (path) => {
  if (path.endsWith('.br') || path.endsWith('.gz')) return;
  const br = `${path}.br`;
  embedded += place(existsSync(br) ? br : path);
});

console.log(`compress: ${files} files, brotli saves ${(saved / 1024).toFixed(1)} KiB; embedded ${(embedded / 1024).toFixed(1)} KiB`);

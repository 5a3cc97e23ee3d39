// Precompresses the built UI (brotli and gzip, at their highest levels) so the server never
// compresses static files per request. A copy is kept only when it is smaller.
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = new URL('../dist/', import.meta.url).pathname;
const compressible = /\.(js|mjs|css|html|svg|json|webmanifest|txt|xml|map|wasm)$/;
let files = 0;
let saved = 0;

function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      walk(path);
    } else if (compressible.test(name) && name !== 'index.html') {
      const data = readFileSync(path);
      const br = brotliCompressSync(data, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length },
      });
      const gz = gzipSync(data, { level: 9 });
      if (br.length < data.length) writeFileSync(`${path}.br`, br);
      if (gz.length < data.length) writeFileSync(`${path}.gz`, gz);
      files += 1;
      saved += data.length - Math.min(br.length, data.length);
    }
  }
}

walk(root);
console.log(`compress: ${files} files, brotli saves ${(saved / 1024).toFixed(1)} KiB`);

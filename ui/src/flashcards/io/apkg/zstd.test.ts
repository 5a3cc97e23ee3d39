// Decompression inside the budget: real zstd data (e2e/fixtures/zstd) is read whole when it fits,
// and a bomb is refused from its header or as soon as its output passes the limit.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { BUDGETS, PackageError } from './budgets';
import { unpack } from './unpack';
import { decompressWithin, frameAllocation, ZstdBudgetError } from './zstd';

const fixture = (name: string) => new Uint8Array(readFileSync(fileURLToPath(new URL(`../../../../e2e/fixtures/zstd/${name}`, import.meta.url))));
const MiB = 1024 * 1024;

describe('decompressWithin', () => {
  it('reads data that fits the limit, byte for byte', () => {
    const out = decompressWithin(fixture('zeros-3m.zst'), 4 * MiB);
    expect(out.length).toBe(3 * MiB);
    expect(out.every((b) => b === 0)).toBe(true);
  });

  it('stops data that grows past the limit while it is read', () => {
    expect(() => decompressWithin(fixture('zeros-3m.zst'), MiB)).toThrow(ZstdBudgetError);
    expect(() => decompressWithin(fixture('bomb-stream.zst'), 8 * MiB)).toThrow(ZstdBudgetError);
  });

  it('refuses a frame that declares more than the limit before allocating it', () => {
    const bomb = fixture('bomb-declared.zst');
    expect(frameAllocation(bomb)).toBe(300 * MiB);
    expect(() => decompressWithin(bomb, BUDGETS.collectionBytes)).toThrow(ZstdBudgetError);
  });

  it('says nothing about bytes that are not zstd, and the decoder refuses them', () => {
    const text = new TextEncoder().encode('not zstd at all');
    expect(frameAllocation(text)).toBeNull();
    expect(() => decompressWithin(text, MiB)).toThrow();
    expect(() => decompressWithin(text, MiB)).not.toThrow(ZstdBudgetError);
  });
});

describe('a package whose collection is a zstd bomb', () => {
  it('is refused with the budget in words', () => {
    const pkg = zipSync({ 'collection.anki21b': fixture('bomb-stream.zst'), 'collection.anki2': new Uint8Array(10) });
    const budgets = { ...BUDGETS, collectionBytes: 8 * MiB };
    expect(() => unpack(pkg, budgets)).toThrow(PackageError);
    expect(() => unpack(pkg, budgets)).toThrow('The collection inside is larger than 8 MB unpacked; collections up to 8 MB can be imported.');
  });
});

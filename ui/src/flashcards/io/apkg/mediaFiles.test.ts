// The current format's media checked file by file: a file whose SHA-1 or size does not match the
// package's list is not kept, and said so; the others are.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { unzipSync, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import type { MediaEntry } from './collection';
import { readMedia } from './mediaFiles';
import { unpack } from './unpack';

const fixture = fileURLToPath(new URL('../../../../e2e/fixtures/anki/current.apkg', import.meta.url));

describe('readMedia', () => {
  it('keeps a file only when its size and SHA-1 match the list', async () => {
    const bytes = new Uint8Array(readFileSync(fixture));
    const { media, compressedMedia } = unpack(bytes);
    expect(compressedMedia).toBe(true);
    const wrongSha = media.map((entry): MediaEntry => (entry.name === 'cat.png' && entry.sha1 ? { ...entry, sha1: entry.sha1.map((b) => b ^ 1) } : entry));
    const wrongSize = wrongSha.map((entry): MediaEntry => {
      if (entry.name === 'foto.jpg' && entry.size) return { ...entry, size: entry.size - 1 };
      // Without a SHA-1 the frame is decompressed within its listed size, and refused past it.
      if (entry.name === 'Straße.png' && entry.size) return { ...entry, size: entry.size - 1, sha1: null };
      return entry;
    });
    const wanted = new Map([
      ['cat.png', 'image'],
      ['foto.jpg', 'image'],
      ['Straße.png', 'image'],
      ['hola.mp3', 'sound'],
    ] as const);
    const reading = await readMedia(bytes, wrongSize, wanted, true);
    expect([...reading.files.keys()]).toEqual(['hola.mp3']);
    expect(reading.problems).toEqual([
      { name: 'Straße.png', reason: 'is larger than the package’s list says' },
      { name: 'cat.png', reason: 'does not match the package’s checksum (it is damaged)' },
      { name: 'foto.jpg', reason: 'does not match the package’s checksum (it is damaged)' },
    ]);
  });

  it('says a listed file the zip lacks, and a picture that is no picture', async () => {
    const bytes = new Uint8Array(readFileSync(fixture));
    const { media } = unpack(bytes);
    const entry = media.find((item) => item.name === 'cat.png')?.entry ?? '';
    const files = Object.fromEntries(Object.entries(unzipSync(bytes)).filter(([name]) => name !== entry));
    const spx = media.find((item) => item.name === 'gruß.spx');
    const reading = await readMedia(
      zipSync(files),
      media,
      new Map([
        ['cat.png', 'image'],
        [spx?.name ?? '', 'image'],
      ] as const),
      true,
    );
    expect(reading.files.size).toBe(0);
    expect(reading.problems).toEqual([
      { name: 'cat.png', reason: 'is in the package’s list but not in the package' },
      { name: 'gruß.spx', reason: 'is not a picture format browsers show (PNG, JPEG, GIF, WebP or SVG)' },
    ]);
  });
});

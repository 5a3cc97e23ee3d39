// The Worker that writes an Anki package off the main thread: it gets a deck, its review record
// and its media files, and answers with the package's bytes (exportRows.ts, writePackage.ts) or
// the reason it could not.
import { collectionRows } from './exportRows';
import type { ExportAnswer, ExportRequest } from './exportProtocol';
import { sqlJs } from './sqlite';
import { writePackage } from './writePackage';

const post = (answer: ExportAnswer, transfer: Transferable[] = []) =>
  (self as unknown as { postMessage(message: ExportAnswer, transfer: Transferable[]): void }).postMessage(answer, transfer);

self.onmessage = async (event: MessageEvent<ExportRequest>) => {
  const { deck, reviews, now, files } = event.data;
  try {
    const rows = collectionRows({ deck, reviews, now });
    const { bytes, missing } = await writePackage(await sqlJs(), rows, new Map(files.map(([hash, data]) => [hash, new Uint8Array(data)])));
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    const summary = {
      notes: rows.notes.length,
      cards: rows.cards.length,
      reviews: rows.revlog.length,
      files: rows.media.length - missing,
      missing,
      skipped: rows.skipped,
    };
    post({ type: 'done', bytes: buffer, summary }, [buffer]);
  } catch (error) {
    post({ type: 'error', message: error instanceof Error ? error.message : String(error) });
  }
};

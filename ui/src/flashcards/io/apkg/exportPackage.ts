// "Export as Anki package (.apkg)" on the page's side: the deck's media files read from the media
// store within the package budgets, handed with the deck and its review record to the Worker
// (exportWorker.ts), and the package's bytes and summary back; a refusal or failure in words.
import { isCompleteCard, type Deck } from '../../deck';
import { referencedHashes } from '../../media/ref';
import type { MediaStore } from '../../media/store';
import { PackageError } from './budgets';
import type { ExportReviews } from './exportRows';
import type { ExportAnswer, ExportRequest, PackageSummary } from './exportProtocol';

export const EXPORT_BUDGETS = {
  /** The media files' bytes in one package (what Hearth's own import takes back: 300 MB a file). */
  mediaBytes: 280 * 1024 * 1024,
  /** Media files in one package. */
  mediaFiles: 20_000,
} as const;

const megabytes = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;

/** The deck's files this device holds, within the budgets (a PackageError names the one passed). */
export async function packageFiles(deck: Pick<Deck, 'cards'>, media: Pick<MediaStore, 'get'>, budgets = EXPORT_BUDGETS): Promise<[string, ArrayBuffer][]> {
  const hashes = [...referencedHashes(deck.cards.filter(isCompleteCard))];
  if (hashes.length > budgets.mediaFiles) {
    throw new PackageError(
      `The deck has ${hashes.length.toLocaleString('en')} pictures and sounds; a package holds up to ${budgets.mediaFiles.toLocaleString('en')}.`,
    );
  }
  const files: [string, ArrayBuffer][] = [];
  let total = 0;
  for (const hash of hashes) {
    const file = await media.get(hash).catch(() => undefined);
    if (!file) continue;
    total += file.bytes.byteLength;
    if (total > budgets.mediaBytes) {
      throw new PackageError(
        `The deck’s pictures and sounds come to more than ${megabytes(budgets.mediaBytes)}; a package holds up to ${megabytes(budgets.mediaBytes)}.`,
      );
    }
    files.push([hash, file.bytes]);
  }
  return files;
}

/** Writes the package in a Worker: its bytes and what it holds. */
export async function buildPackage(
  deck: Deck,
  reviews: ExportReviews,
  media: Pick<MediaStore, 'get'>,
  now = Date.now(),
): Promise<{ bytes: ArrayBuffer; summary: PackageSummary }> {
  const files = await packageFiles(deck, media);
  const worker = new Worker(new URL('./exportWorker.ts', import.meta.url), { type: 'module', name: 'anki-export' });
  try {
    return await new Promise((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<ExportAnswer>) => {
        const answer = event.data;
        if (answer.type === 'done') resolve({ bytes: answer.bytes, summary: answer.summary });
        else reject(new PackageError(`The package could not be written (${answer.message}).`));
      };
      worker.onerror = (event) => reject(new PackageError(`The package writer stopped (${event.message || 'the Worker could not start'}).`));
      const request: ExportRequest = { deck, reviews, now, files };
      worker.postMessage(
        request,
        files.map(([, bytes]) => bytes),
      );
    });
  } finally {
    worker.terminate();
  }
}

/** What the page says once the package is written. */
export function packageSummaryText(name: string, summary: PackageSummary): string {
  const count = (n: number, one: string, many: string) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;
  const parts = [
    count(summary.notes, 'note', 'notes'),
    count(summary.cards, 'card', 'cards'),
    count(summary.reviews, 'review', 'reviews'),
    count(summary.files, 'media file', 'media files'),
  ];
  let text = `Exported “${name}” as an Anki package: ${parts.join(', ')}.`;
  if (summary.missing > 0)
    text += ` ${count(summary.missing, 'picture or sound is', 'pictures and sounds are')} not on this device yet and ${summary.missing === 1 ? 'was' : 'were'} left out.`;
  if (summary.skipped > 0) text += ` ${count(summary.skipped, 'card without text on a side was', 'cards without text on a side were')} left out.`;
  return text;
}

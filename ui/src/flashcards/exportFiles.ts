// Exports as downloads: the backup (with review logs) of all decks or one deck, a deck as Anki
// text, and a deck as an Anki package (.apkg, written in a Worker: io/apkg/exportPackage.ts).
// Decks without pictures or sounds export as before (JSON, .txt); with them, the backup is a zip
// of the JSON and the files (io/backupZip.ts), and the Anki text comes in a zip beside the files
// it names, ready for Anki's collection.media folder.
// The only DOM work here is handing a Blob to a temporary link; the contents come from io/.
import { strToU8, zipSync, type Zippable } from 'fflate';
import type { Deck } from './deck';
import { writeAnki } from './io/anki';
import { ankiFileNames } from './io/ankiMedia';
import { writeBackup } from './io/backup';
import { writeBackupZip } from './io/backupZip';
import { fileNameFor } from './io/importPlan';
import { buildPackage } from './io/apkg/exportPackage';
import type { PackageSummary } from './io/apkg/exportProtocol';
import { mediaStore } from './media/store';
import { deckStore } from './storage';

function download(fileName: string, content: string | Uint8Array | ArrayBuffer, type: string): void {
  const url = URL.createObjectURL(new Blob([content as BlobPart], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.style.display = 'none';
  document.body.append(link);
  link.click();
  link.remove();
  // Give the browser a moment to start the download before the URL goes.
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

const day = (now: Date) => now.toISOString().slice(0, 10);

const hasMedia = (decks: readonly Deck[]) => decks.some((deck) => deck.cards.some((card) => card.media.length > 0));

const missingNote = (missing: number) =>
  missing === 0 ? null : `${missing} picture(s) or sound(s) this device does not hold yet were left out of the export; the cards still name them.`;

/** The backup of `decks`: JSON as before, or a zip with their pictures and sounds. Answers a note for the learner, or null. */
async function exportBackup(decks: readonly Deck[], baseName: string, now: Date): Promise<string | null> {
  const reviews = deckStore.readAllReviews(decks.map((deck) => deck.id));
  if (!hasMedia(decks)) {
    download(`${baseName}.json`, writeBackup(decks, now, reviews), 'application/json');
    return null;
  }
  const { zip, missing } = await writeBackupZip(decks, now, reviews, mediaStore);
  download(`${baseName}.zip`, zip, 'application/zip');
  return missingNote(missing);
}

/**
 * Downloads every deck as one backup, with their review logs, and remembers when, for the backup
 * reminder.
 */
export async function exportAllDecks(decks: readonly Deck[], now = new Date()): Promise<string | null> {
  const note = await exportBackup(decks, `hearth-decks-${day(now)}`, now);
  deckStore.recordExport(now);
  return note;
}

export function exportDeckJson(deck: Deck, now = new Date()): Promise<string | null> {
  return exportBackup([deck], fileNameFor(deck.name, 'json').replace(/\.json$/, ''), now);
}

/**
 * Anki text holds the cards only: the review log stays out (Anki schedules on its own). With
 * pictures or sounds, a zip of the text and the files under the names the text gives them.
 */
export async function exportDeckAnki(deck: Deck): Promise<string | null> {
  const textName = fileNameFor(deck.name, 'txt');
  const names = ankiFileNames(deck.cards);
  const text = writeAnki(deck.cards, names);
  if (names.size === 0) {
    download(textName, text, 'text/plain;charset=utf-8');
    return null;
  }
  const entries: Zippable = { [textName]: strToU8(text) };
  let missing = 0;
  for (const [hash, name] of names) {
    const file = await mediaStore.get(hash);
    if (file) entries[name] = [new Uint8Array(file.bytes), { level: 0 }];
    else missing += 1;
  }
  download(textName.replace(/\.txt$/, '.zip'), zipSync(entries), 'application/zip');
  return missingNote(missing);
}

/**
 * The deck as an Anki package with its schedule, review log and media, downloaded as
 * "{deck name}.apkg"; answers what it holds (a PackageError says why it could not be written).
 */
export async function exportDeckPackage(deck: Deck, now = Date.now()): Promise<PackageSummary> {
  const { bytes, summary } = await buildPackage(deck, deckStore.readReviews(deck.id), mediaStore, now);
  download(fileNameFor(deck.name, 'apkg'), bytes, 'application/octet-stream');
  return summary;
}

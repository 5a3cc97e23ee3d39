// Exports as downloads: the JSON backup (with review logs) of all decks or one deck, a deck as
// Anki text, and a deck as an Anki package (.apkg, written in a Worker: io/apkg/exportPackage.ts).
// The only DOM work here is handing a Blob to a temporary link; the texts come from io/.
import type { Deck } from './deck';
import { writeAnki } from './io/anki';
import { writeBackup } from './io/backup';
import { fileNameFor } from './io/importPlan';
import { buildPackage } from './io/apkg/exportPackage';
import type { PackageSummary } from './io/apkg/exportProtocol';
import { mediaStore } from './media/store';
import { deckStore } from './storage';

function download(fileName: string, content: string | ArrayBuffer, type: string): void {
  const url = URL.createObjectURL(new Blob([content], { type }));
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

/**
 * Downloads every deck as one backup, with their review logs, and remembers when, for the backup
 * reminder.
 */
export function exportAllDecks(decks: readonly Deck[], now = new Date()): void {
  const reviews = deckStore.readAllReviews(decks.map((deck) => deck.id));
  download(`hearth-decks-${day(now)}.json`, writeBackup(decks, now, reviews), 'application/json');
  deckStore.recordExport(now);
}

export function exportDeckJson(deck: Deck, now = new Date()): void {
  download(fileNameFor(deck.name, 'json'), writeBackup([deck], now, deckStore.readAllReviews([deck.id])), 'application/json');
}

/** Anki text holds the cards only: the review log stays out (Anki schedules on its own). */
export function exportDeckAnki(deck: Deck): void {
  download(fileNameFor(deck.name, 'txt'), writeAnki(deck.cards), 'text/plain;charset=utf-8');
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

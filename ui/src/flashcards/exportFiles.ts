// Exports as downloads: the JSON backup (with review logs) of all decks or one deck, and a deck as
// Anki text.
// The only DOM work here is handing a Blob to a temporary link; the texts come from io/.
import type { Deck } from './deck';
import { writeAnki } from './io/anki';
import { writeBackup } from './io/backup';
import { fileNameFor } from './io/importPlan';
import { deckStore } from './storage';

function download(fileName: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
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

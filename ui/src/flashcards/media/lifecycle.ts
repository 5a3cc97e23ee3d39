// When files enter and leave the media store: an import's files are stored before its decks (so a
// deck never refers to a file that is not there, and a full disk stops the import with nothing
// half done), the browser is asked to keep the site's storage when media is first stored, and
// files no deck or draft refers to are removed after a deck is saved or deleted and after an
// import, never while an import is storing (its files are referred to only once its decks land).
import { askToKeep, browserStorageManager } from '../keepStorage';
import { deckStore, type DeckStore } from '../storage';
import { referencedHashes } from './ref';
import { MediaStoreError, mediaStore, type MediaStore } from './store';

let importing = 0;
let asked = false;

/** The files (bytes and type) kept in `store`; a full disk throws MediaStoreError with `full` after what fitted was kept. */
export async function storeFiles(files: readonly { bytes: ArrayBuffer; type: string }[], store: MediaStore = mediaStore): Promise<void> {
  for (const file of files) await store.put(file.bytes, file.type);
  if (files.length > 0 && !asked) {
    asked = true;
    void askToKeep(browserStorageManager());
  }
}

/**
 * Runs `work` (storing an import's files, then saving its decks) as an import in flight: no prune
 * runs meanwhile; one runs after it.
 */
export async function whileImporting<T>(work: () => Promise<T>): Promise<T> {
  importing += 1;
  try {
    return await work();
  } finally {
    importing -= 1;
    if (importing === 0) void pruneMedia();
  }
}

/** Every hash a stored deck, its draft or the new deck's draft refers to. */
export function referencedByDecks(decks: DeckStore = deckStore): Set<string> {
  const keep = referencedHashes(decks.listDecks().flatMap((deck) => deck.cards));
  const drafts = [decks.readDraft(null), ...decks.readIndex().map((id) => decks.readDraft(id)), decks.readLastSaved()];
  for (const draft of drafts) if (draft) for (const hash of referencedHashes(draft.cards)) keep.add(hash);
  return keep;
}

/**
 * Removes the files nothing refers to; answers how many (0 while an import is in flight, or when
 * the store cannot be opened: nothing is lost by pruning later).
 */
export async function pruneMedia(decks: DeckStore = deckStore, store: MediaStore = mediaStore): Promise<number> {
  if (importing > 0) return 0;
  try {
    return await store.prune(referencedByDecks(decks));
  } catch {
    return 0;
  }
}

/** The words for a failed store of an import's files. */
export function importStoreError(error: unknown): string {
  if (error instanceof MediaStoreError && error.full) {
    return 'This device is full: the pictures and sounds of this import do not fit, so nothing was imported. Everything stored before is still there.';
  }
  return `The pictures and sounds could not be stored, so nothing was imported: ${error instanceof Error ? error.message : String(error)}`;
}

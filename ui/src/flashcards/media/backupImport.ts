// A zip backup chosen in the Import dialog: opened and checked (io/backupZip.ts) into the decks'
// JSON, read as any backup, and the pictures and sounds that passed their checks, kept in the
// media store only when the learner presses Import.
import type { Deck } from '../deck';
import { ImportError } from '../io/delimited';
import { BACKUP_BUDGETS, isZip, keepBackupFiles, openBackupZip, type BackupFile } from '../io/backupZip';
import { formatBytes } from './limits';
import { mediaStore, MediaStoreError } from './store';

export interface BackupMedia {
  files: ReadonlyMap<string, BackupFile>;
  /** What the backup carries, and what was left out, in words. */
  summary: string;
}

export const isBackupZipName = (name: string) => name.toLowerCase().endsWith('.zip');

export async function readBackupFile(file: File): Promise<{ text: string; media: BackupMedia }> {
  if (file.size > BACKUP_BUDGETS.zipBytes) {
    throw new Error(`The backup is ${formatBytes(file.size)}; backups up to ${formatBytes(BACKUP_BUDGETS.zipBytes)} can be imported.`);
  }
  const bytes = new Uint8Array(await file.arrayBuffer());
  if (!isZip(bytes)) throw new Error('This .zip file is not a zip archive.');
  try {
    const read = await openBackupZip(bytes);
    const count = read.files.size;
    const summary = [
      `The backup carries ${count} picture(s) and sound(s).`,
      ...read.problems.map((problem) => `${problem[0]?.toUpperCase() ?? ''}${problem.slice(1)}.`),
    ].join(' ');
    return { text: read.text, media: { files: read.files, summary } };
  } catch (error) {
    if (error instanceof ImportError) throw new Error(`This backup cannot be imported: ${error.message}.`, { cause: error });
    throw error;
  }
}

/** Keeps the files the decks refer to; answers why it could not, in words, or null. */
export async function storeBackupMedia(decks: readonly Deck[], media: BackupMedia): Promise<string | null> {
  try {
    await keepBackupFiles(decks, media.files, mediaStore);
    return null;
  } catch (error) {
    if (error instanceof MediaStoreError) return `Nothing was imported: ${error.message}`;
    return `Nothing was imported: the pictures and sounds could not be kept (${error instanceof Error ? error.message : String(error)}).`;
  }
}

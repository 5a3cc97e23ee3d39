// The limits an Anki package import keeps (so a wrong or huge file fails with a reason instead of
// freezing the tab), and the error that carries the reason to the dialog. Pure.

/** Why a file cannot be imported, in words for the learner. */
export class PackageError extends Error {
  override name = 'PackageError';
}

export const BUDGETS = {
  /** The file as chosen (media included, though only the collection is read). */
  fileBytes: 300 * 1024 * 1024,
  /** The collection database once unzipped and decompressed. */
  collectionBytes: 256 * 1024 * 1024,
  /** Cards in the collection. */
  cards: 50_000,
  /** Media files kept from one import (those the cards refer to). */
  mediaFiles: 10_000,
  /** Their bytes in all, decompressed. */
  mediaBytes: 256 * 1024 * 1024,
  /** One media file, decompressed. */
  mediaFileBytes: 32 * 1024 * 1024,
} as const;

export type Budgets = { readonly [K in keyof typeof BUDGETS]: number };

export const megabytes = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;

export function checkFileSize(bytes: number, budgets: Budgets = BUDGETS): void {
  if (bytes > budgets.fileBytes) throw new PackageError(`The file is ${megabytes(bytes)}; packages up to ${megabytes(budgets.fileBytes)} can be imported.`);
}

export function checkCollectionSize(bytes: number, budgets: Budgets = BUDGETS): void {
  if (bytes > budgets.collectionBytes) {
    throw new PackageError(`The collection inside is ${megabytes(bytes)} unpacked; collections up to ${megabytes(budgets.collectionBytes)} can be imported.`);
  }
}

/** A collection that grew past the budget while it was being decompressed (its size is not known). */
export const collectionTooLarge = (budgets: Budgets = BUDGETS) =>
  new PackageError(
    `The collection inside is larger than ${megabytes(budgets.collectionBytes)} unpacked; collections up to ${megabytes(budgets.collectionBytes)} can be imported.`,
  );

export function checkCardCount(cards: number, budgets: Budgets = BUDGETS): void {
  if (cards > budgets.cards) {
    throw new PackageError(`The collection has ${cards.toLocaleString('en')} cards; up to ${budgets.cards.toLocaleString('en')} can be imported at once.`);
  }
}

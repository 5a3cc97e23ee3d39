// What the import dialog says about a read Anki package: the plan it imports (its decks and
// review logs) and, in words, what was left out (media, unusable cards). Pure.
import type { ImportPlan } from '../importPlan';
import type { PackageResult } from './readPackage';

export function packagePlan(result: PackageResult): ImportPlan {
  return { status: 'decks', format: 'apkg', decks: result.decks, reviews: result.reviews, problems: [] };
}

const plural = (count: number, one: string, many: string) => `${count.toLocaleString('en')} ${count === 1 ? one : many}`;

function joinAnd(parts: string[]): string {
  return parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

/** Sentences on what the import leaves out; none when it takes everything. */
export function skippedInWords(result: PackageResult): string[] {
  const lines: string[] = [];
  const { images, sounds, skippedCards, cards } = result.summary;
  const media = [images > 0 ? plural(images, 'image', 'images') : '', sounds > 0 ? plural(sounds, 'sound', 'sounds') : ''].filter(Boolean);
  if (media.length > 0) {
    lines.push(`Skipped ${joinAnd(media)}: media is not imported, the cards keep their text.`);
  } else if (result.mediaFiles > 0) {
    lines.push(`Skipped ${plural(result.mediaFiles, 'media file', 'media files')}: media is not imported.`);
  }
  if (skippedCards > 0) {
    lines.push(
      `Skipped ${plural(skippedCards, 'card', 'cards')} of ${cards.toLocaleString('en')}: no text on one side, or a third or later card of a note type.`,
    );
  }
  return lines;
}

// What the import dialog says about a read Anki package: the plan it imports (its decks and
// review logs) and, in words, what was left out (a picture or sound not kept and why, unusable
// cards). Pure.
import type { ImportPlan } from '../importPlan';
import type { PackageResult } from './readPackage';

export function packagePlan(result: PackageResult): ImportPlan {
  return { status: 'decks', format: 'apkg', decks: result.decks, reviews: result.reviews, problems: [] };
}

const plural = (count: number, one: string, many: string) => `${count.toLocaleString('en')} ${count === 1 ? one : many}`;

function joinAnd(parts: string[]): string {
  return parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

/** Files named one by one in the summary; past this many the rest are counted. */
export const NAMED_PROBLEMS = 5;

/** Sentences on what the import leaves out; none when it takes everything. */
export function skippedInWords(result: PackageResult): string[] {
  const lines: string[] = [];
  const { skippedCards, cards } = result.summary;
  const { problems } = result.media;
  if (problems.length > 0) {
    const named = problems.slice(0, NAMED_PROBLEMS).map(({ name, reason }) => `“${name}” ${reason}`);
    const more = problems.length - named.length;
    lines.push(
      `Skipped ${plural(problems.length, 'picture or sound', 'pictures and sounds')} (the cards keep their text): ${named.join('; ')}${
        more > 0 ? `; and ${plural(more, 'more file', 'more files')}` : ''
      }.`,
    );
  }
  if (skippedCards > 0) {
    lines.push(
      `Skipped ${plural(skippedCards, 'card', 'cards')} of ${cards.toLocaleString('en')}: no text on one side, or a third or later card of a note type.`,
    );
  }
  return lines;
}

/** What the import brings besides the decks, in words (pictures and sounds kept); null when none. */
export function mediaInWords(result: PackageResult): string | null {
  const images = result.media.files.filter((file) => file.kind === 'image').length;
  const sounds = result.media.files.length - images;
  const parts = [images > 0 ? plural(images, 'picture', 'pictures') : '', sounds > 0 ? plural(sounds, 'sound', 'sounds') : ''].filter(Boolean);
  return parts.length > 0 ? `With ${joinAnd(parts)}.` : null;
}

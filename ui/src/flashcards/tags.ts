// Card tags (as Anki keeps them): non-empty words without spaces, compared without regard to case
// when a practice is limited to one. Pure.

/** Tags as stored: each text split at white space, empty parts dropped, the first spelling of a duplicate kept. */
export function normaliseTags(texts: readonly string[]): string[] {
  const tags: string[] = [];
  const seen = new Set<string>();
  for (const text of texts) {
    for (const tag of text.split(/\s+/)) {
      const key = tag.toLocaleLowerCase();
      if (tag === '' || seen.has(key)) continue;
      seen.add(key);
      tags.push(tag);
    }
  }
  return tags;
}

/** What the editor's tag field shows: the tags separated by spaces. */
export const formatTags = (tags: readonly string[]) => tags.join(' ');

/** The tags typed in the editor's field (spaces or commas between them). */
export const parseTagInput = (input: string) => normaliseTags([input.replace(/,/g, ' ')]);

/** True when `tags` hold `tag` (case does not matter, as in Anki). */
export function hasTag(tags: readonly string[], tag: string): boolean {
  const wanted = tag.toLocaleLowerCase();
  return tags.some((other) => other.toLocaleLowerCase() === wanted);
}

/** Every tag of the cards, once (first spelling), sorted for display. */
export function deckTags(cards: readonly { tags: readonly string[] }[]): string[] {
  const all = normaliseTags(cards.flatMap((card) => card.tags));
  return all.sort((a, b) => a.localeCompare(b, undefined, { sensitivity: 'base' }));
}

/** The practice address limited to `tag` (a query, so the spec's routes stay as they are). */
export const tagQuery = (tag: string) => `?tag=${encodeURIComponent(tag)}`;

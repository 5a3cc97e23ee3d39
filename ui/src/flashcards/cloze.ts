// Cloze cards (as Anki writes them): `{{c1::answer}}` or `{{c1::answer::hint}}` in a card's front.
// Each cloze number is a practice card of its own, asked with that number's texts hidden behind
// `[...]` (or `[hint]`) and the other numbers' texts shown plain. Nested or malformed markup is not
// a deletion: it is shown literally, as typed. Pure.

/** A piece of a front: plain text, or one deletion with its number, hidden text and hint. */
export type ClozePart = { kind: 'text'; text: string } | { kind: 'cloze'; number: number; answer: string; hint: string };

/** A piece as a practice card shows it: `hidden` marks the blank, `revealed` the text it hid. */
export interface ShownPart {
  text: string;
  role: 'plain' | 'hidden' | 'revealed';
}

const OPEN = /\{\{c(\d+)::/g;

/** The end of a deletion opened at `from` (just after its `{{cN::`): the index of its `}}`, or -1. */
function closeOf(text: string, from: number): { close: number; nested: boolean } {
  const nextClose = text.indexOf('}}', from);
  const nextOpen = text.indexOf('{{', from);
  if (nextClose < 0) return { close: -1, nested: false };
  if (nextOpen < 0 || nextOpen > nextClose) return { close: nextClose, nested: false };
  // Something opens inside: find where the outer one would end, counting braces pairs, so the
  // whole nested construct is shown as typed.
  let depth = 1;
  let at = from;
  while (at < text.length) {
    if (text.startsWith('{{', at)) {
      depth += 1;
      at += 2;
    } else if (text.startsWith('}}', at)) {
      depth -= 1;
      at += 2;
      if (depth === 0) return { close: at - 2, nested: true };
    } else at += 1;
  }
  return { close: -1, nested: true };
}

/** The front split into plain text and deletions (adjacent plain texts joined). */
export function parseCloze(front: string): ClozePart[] {
  const parts: ClozePart[] = [];
  const pushText = (text: string) => {
    if (text === '') return;
    const last = parts[parts.length - 1];
    if (last?.kind === 'text') last.text += text;
    else parts.push({ kind: 'text', text });
  };
  let from = 0;
  OPEN.lastIndex = 0;
  for (let match = OPEN.exec(front); match; match = OPEN.exec(front)) {
    if (match.index < from) continue;
    const start = match.index;
    const bodyStart = start + match[0].length;
    const number = Number.parseInt(match[1] ?? '', 10);
    const { close, nested } = closeOf(front, bodyStart);
    if (close < 0) {
      // Never closed: the rest is text, but a later well-formed deletion still counts.
      continue;
    }
    if (nested) {
      pushText(front.slice(from, close + 2));
      from = close + 2;
      OPEN.lastIndex = from;
      continue;
    }
    const body = front.slice(bodyStart, close);
    const split = body.indexOf('::');
    const answer = split < 0 ? body : body.slice(0, split);
    const hint = split < 0 ? '' : body.slice(split + 2);
    pushText(front.slice(from, start));
    if (number < 1 || answer.trim() === '') pushText(front.slice(start, close + 2));
    else parts.push({ kind: 'cloze', number, answer, hint: hint.trim() });
    from = close + 2;
    OPEN.lastIndex = from;
  }
  pushText(front.slice(from));
  return parts;
}

/** The cloze numbers of a front, ascending, each once; [] for a card that is not a cloze card. */
export function clozeNumbers(front: string): number[] {
  const numbers = new Set<number>();
  for (const part of parseCloze(front)) if (part.kind === 'cloze') numbers.add(part.number);
  return [...numbers].sort((a, b) => a - b);
}

/** True when the front holds at least one deletion. */
export const isClozeFront = (front: string) => front.includes('{{c') && clozeNumbers(front).length > 0;

/** The blank shown for a hidden text: `[hint]`, or `[...]` without a hint (Anki's way). */
export const blank = (hint: string) => `[${hint === '' ? '...' : hint}]`;

/**
 * The front as the card for `number` shows it: that number's texts blank (or revealed after the
 * flip), every other deletion's text plain.
 */
export function showCloze(front: string, number: number, revealed: boolean): ShownPart[] {
  const shown: ShownPart[] = [];
  for (const part of parseCloze(front)) {
    if (part.kind === 'text') shown.push({ text: part.text, role: 'plain' });
    else if (part.number !== number) shown.push({ text: part.answer, role: 'plain' });
    else shown.push(revealed ? { text: part.answer, role: 'revealed' } : { text: blank(part.hint), role: 'hidden' });
  }
  return shown;
}

/** showCloze as one text. */
export const clozeText = (front: string, number: number, revealed: boolean) =>
  showCloze(front, number, revealed)
    .map((part) => part.text)
    .join('');

/** What a typed answer is compared with: the number's hidden texts, in order, joined by ', ' (as Anki does). */
export function clozeAnswer(front: string, number: number): string {
  return parseCloze(front)
    .flatMap((part) => (part.kind === 'cloze' && part.number === number ? [part.answer.trim()] : []))
    .join(', ');
}

/**
 * The key of a cloze card's practice item in sessions and the review log: the card's own id for
 * c1 (a card with one deletion is one item, as a plain card is), `{cardId}:c{number}` for the
 * others. The .apkg import keys Anki's cloze cards the same way.
 */
export const clozeKey = (cardId: string, number: number) => (number <= 1 ? cardId : `${cardId}:c${number}`);

/**
 * A card's two sides as a list of cards shows them (a shared deck's page, an update's review): a
 * cloze card's front with every deletion blank, its back with them revealed, then on a line of its
 * own the card's back (Anki's "Back Extra") when it has one; any other card as it is.
 */
export function listedSides(card: { front: string; back: string }): { front: string; back: string } {
  if (!isClozeFront(card.front)) return { front: card.front, back: card.back };
  const parts = parseCloze(card.front);
  const front = parts.map((part) => (part.kind === 'text' ? part.text : blank(part.hint))).join('');
  const revealed = parts.map((part) => (part.kind === 'text' ? part.text : part.answer)).join('');
  return { front, back: card.back.trim() === '' ? revealed : `${revealed}\n${card.back}` };
}

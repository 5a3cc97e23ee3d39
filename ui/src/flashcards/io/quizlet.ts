// Quizlet's export: a text of cards joined by a card separator (new line, semicolon or a custom
// string), each card a term and a definition joined by a term separator (tab, comma or custom).
// Quizlet does not quote, so cards are split first and each card at its first term separator:
// a definition may hold the term separator, a term may not.
import type { CardsResult, ImportedCard, ImportProblem } from './columns';
import { ImportError, stripBom } from './delimited';

export type QuizletTermSeparator = { kind: 'tab' } | { kind: 'comma' } | { kind: 'custom'; value: string };
export type QuizletCardSeparator = { kind: 'newline' } | { kind: 'semicolon' } | { kind: 'custom'; value: string };

export interface QuizletOptions {
  term: QuizletTermSeparator;
  card: QuizletCardSeparator;
}

export const QUIZLET_DEFAULTS: QuizletOptions = { term: { kind: 'tab' }, card: { kind: 'newline' } };

function termSeparator(option: QuizletTermSeparator): string {
  if (option.kind === 'tab') return '\t';
  if (option.kind === 'comma') return ',';
  // Quizlet's own custom fields take escapes like \n literally typed; honour \t and \n too.
  return unescape(option.value);
}

function cardSeparator(option: QuizletCardSeparator): string | RegExp {
  if (option.kind === 'newline') return /\r\n|\n|\r/;
  if (option.kind === 'semicolon') return ';';
  return unescape(option.value);
}

const unescape = (value: string) => value.replaceAll('\\t', '\t').replaceAll('\\n', '\n');

/** Splits `text` at `separator`, with the line each piece starts on. */
function splitWithLines(text: string, separator: string | RegExp): { line: number; text: string }[] {
  const pieces: { line: number; text: string }[] = [];
  const pattern = typeof separator === 'string' ? new RegExp(separator.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g') : new RegExp(separator.source, 'g');
  let line = 1;
  let from = 0;
  const countBreaks = (s: string) => (s.match(/\r\n|\n|\r/g) ?? []).length;
  for (const match of text.matchAll(pattern)) {
    const piece = text.slice(from, match.index);
    pieces.push({ line, text: piece });
    line += countBreaks(piece) + countBreaks(match[0]);
    from = match.index + match[0].length;
  }
  pieces.push({ line, text: text.slice(from) });
  return pieces;
}

export function readQuizlet(text: string, options: QuizletOptions = QUIZLET_DEFAULTS): CardsResult {
  const term = termSeparator(options.term);
  const card = cardSeparator(options.card);
  if (term === '') throw new ImportError('the separator between term and definition is empty');
  if (card === '') throw new ImportError('the separator between cards is empty');
  if (typeof card === 'string' && card === term) throw new ImportError('the term and card separators are the same');
  const cards: ImportedCard[] = [];
  const problems: ImportProblem[] = [];
  for (const piece of splitWithLines(stripBom(text), card)) {
    // Leading line breaks (e.g. after a semicolon at a line end) belong to no card.
    const leading = /^(\r\n|\n|\r|[ \t]*(\r\n|\n|\r))*/.exec(piece.text)?.[0] ?? '';
    const line = piece.line + (leading.match(/\r\n|\n|\r/g) ?? []).length;
    const body = piece.text.slice(leading.length);
    if (body.trim() === '') continue;
    const at = body.indexOf(term);
    if (at < 0) {
      problems.push({ line, message: `no ${describe(options.term)} between term and definition; the card is skipped` });
      continue;
    }
    const front = body.slice(0, at).trim();
    const back = body.slice(at + term.length).trim();
    if (front === '' || back === '') {
      problems.push({ line, message: `the ${front === '' ? 'term' : 'definition'} is empty; the card is skipped` });
      continue;
    }
    cards.push({ line, front, back, pronunciation: '', gender: '', example: '', tags: [] });
  }
  return { cards, problems };
}

function describe(option: QuizletTermSeparator): string {
  if (option.kind === 'tab') return 'tab';
  if (option.kind === 'comma') return 'comma';
  return `“${option.value}”`;
}

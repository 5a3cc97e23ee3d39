// What an import would do, computed from the pasted or loaded text and the chosen options, so the
// dialog can preview it live and save only on confirmation: the format (detected where it can
// be), the decks or cards read, the rows left out, or the error that stops it.
import { DECK_VERSION, normaliseForSave, type Card, type Deck, type DeckMeta } from '../deck';
import { guidOf, newGuid } from '../guid';
import { ankiDeckName, looksLikeAnki, readAnki } from './anki';
import { looksLikeJson, readBackup, withFreshIds } from './backup';
import { headerColumns, rowsToCards, type CardsResult, type ImportedCard, type ImportProblem } from './columns';
import { detectDelimiter, ImportError, tokenize, type DetectedDelimiter } from './delimited';
import type { ReviewRecord } from '../srs/reviewLog';
import { QUIZLET_DEFAULTS, readQuizlet, type QuizletOptions } from './quizlet';

export type ImportFormat = 'json' | 'anki' | 'delimited' | 'quizlet';
export type FormatChoice = 'auto' | ImportFormat;
export type DelimiterChoice = 'auto' | DetectedDelimiter;

export const FORMAT_LABELS: Record<ImportFormat, string> = {
  json: 'Hearth backup (JSON)',
  anki: 'Anki plain text',
  delimited: 'CSV / TSV',
  quizlet: 'Quizlet export',
};

export const DELIMITER_LABELS: Record<DetectedDelimiter, string> = { '\t': 'Tab', ';': 'Semicolon', ',': 'Comma' };

export interface ImportRequest {
  text: string;
  format: FormatChoice;
  delimiter: DelimiterChoice;
  quizlet: QuizletOptions;
}

export const DEFAULT_REQUEST: ImportRequest = { text: '', format: 'auto', delimiter: 'auto', quizlet: QUIZLET_DEFAULTS };

export type ImportPlan =
  | { status: 'empty' }
  | { status: 'error'; format: ImportFormat; error: string; problems: ImportProblem[] }
  | { status: 'decks'; format: 'json' | 'apkg'; decks: Deck[]; reviews: (ReviewRecord | null)[]; problems: ImportProblem[] }
  | { status: 'cards'; format: Exclude<ImportFormat, 'json'>; cards: ImportedCard[]; problems: ImportProblem[]; delimiter?: DetectedDelimiter };

/** The format of a text when the user leaves it to us. Quizlet's export reads as TSV/CSV. */
export function detectFormat(text: string): ImportFormat {
  if (looksLikeJson(text)) return 'json';
  if (looksLikeAnki(text)) return 'anki';
  return 'delimited';
}

/** CSV/TSV: the delimiter detected (or chosen), and a first row of column names used as a header. */
export function readDelimited(text: string, delimiter: DelimiterChoice = 'auto'): CardsResult & { delimiter: DetectedDelimiter } {
  const chosen = delimiter === 'auto' ? detectDelimiter(text) : delimiter;
  const rows = tokenize(text, chosen);
  const first = rows[0];
  const header = first ? headerColumns(first.fields) : null;
  if (header) rows.shift();
  return { ...(header ? rowsToCards(rows, header) : rowsToCards(rows)), delimiter: chosen };
}

export function planImport(request: ImportRequest, makeId: () => string): ImportPlan {
  if (request.text.trim() === '' || request.text.trim() === '\ufeff') return { status: 'empty' };
  const format = request.format === 'auto' ? detectFormat(request.text) : request.format;
  try {
    if (format === 'json') {
      const { decks, reviews, problems } = readBackup(request.text, makeId);
      return { status: 'decks', format, decks, reviews, problems };
    }
    let result: CardsResult;
    let delimiter: DetectedDelimiter | undefined;
    if (format === 'anki') result = readAnki(request.text);
    else if (format === 'quizlet') result = readQuizlet(request.text, request.quizlet);
    else {
      const read = readDelimited(request.text, request.delimiter);
      result = read;
      delimiter = read.delimiter;
    }
    if (result.cards.length === 0) {
      return { status: 'error', format, error: 'No cards found: each card needs a front and a back.', problems: result.problems };
    }
    return { status: 'cards', format, cards: result.cards, problems: result.problems, ...(delimiter ? { delimiter } : {}) };
  } catch (error) {
    if (error instanceof ImportError) return { status: 'error', format, error: error.message, problems: [] };
    throw error;
  }
}

/**
 * The decks to store when the user confirms: backup decks as they were (new ids only where an id
 * is taken), or one new deck of the imported cards with the metadata the user gave it and only the
 * optional fields (pronunciation, gender, example) some imported card has switched on.
 */
export function decksToSave(plan: ImportPlan, meta: DeckMeta, takenIds: Iterable<string>, makeId: () => string, now: Date): Deck[] {
  // A backup's card without a guid (written before guids) gets one now: the one an export of its
  // deck would have derived, so the restored deck and earlier exports of it name the same notes.
  if (plan.status === 'decks') return withFreshIds(plan.decks.map(withGuids), takenIds, makeId);
  if (plan.status !== 'cards') return [];
  const cards: Card[] = plan.cards.map((card) => ({
    id: makeId(),
    front: card.front,
    back: card.back,
    pronunciation: card.pronunciation,
    gender: card.gender,
    example: card.example,
    tags: card.tags,
    suspended: false,
    media: [],
    guid: newGuid(),
  }));
  const has = (field: 'pronunciation' | 'gender' | 'example') => plan.cards.some((card) => card[field].trim() !== '');
  const fields = { pronunciationField: has('pronunciation'), genderField: has('gender'), exampleField: has('example') };
  const [deck] = withFreshIds([normaliseForSave(makeId(), { ...meta, ...fields }, cards, now)], takenIds, makeId);
  return deck ? [{ ...deck, type: 'deck', version: DECK_VERSION }] : [];
}

/**
 * The review logs to store with the decks decksToSave gave (same order), under the ids those
 * decks were given: a deck imported as a copy brings its log along.
 */
export function reviewsToSave(plan: ImportPlan, saved: readonly Deck[]): Record<string, ReviewRecord> {
  const logs: Record<string, ReviewRecord> = {};
  if (plan.status !== 'decks') return logs;
  saved.forEach((deck, index) => {
    const log = plan.reviews[index];
    if (log) logs[deck.id] = log;
  });
  return logs;
}

/** A deck name from a file name: the extension dropped, separators turned into spaces. */
export function nameFromFileName(fileName: string): string {
  return fileName
    .replace(/\.[^.]*$/, '')
    .replace(/[_]+/g, ' ')
    .trim();
}

/**
 * The deck name the dialog proposes until the visitor types one: the `#deck:` header of an Anki
 * export, else the chosen file's name, else nothing.
 */
export function suggestedDeckName(text: string, fileName: string | null): string {
  return ankiDeckName(text) ?? (fileName === null ? '' : nameFromFileName(fileName));
}

/** Why Import is disabled, in words shown beside it; null when the plan can be imported. */
export function importBlocker(plan: ImportPlan, name: string): string | null {
  switch (plan.status) {
    case 'empty':
      return 'Paste text or choose a file to import.';
    case 'error':
      return 'Nothing to import until the problem above is solved.';
    case 'cards':
      return name.trim() === '' ? 'Give the deck a name to import it.' : null;
    case 'decks':
      return null;
  }
}

/** A file name for a deck's export: its name reduced to safe characters. */
export function fileNameFor(name: string, extension: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return `${base || 'deck'}.${extension}`;
}

/** The deck with each card that has no guid given the one derived from its deck and card ids. */
function withGuids(deck: Deck): Deck {
  return deck.cards.every((card) => card.guid !== '') ? deck : { ...deck, cards: deck.cards.map((card) => ({ ...card, guid: guidOf(deck.id, card) })) };
}

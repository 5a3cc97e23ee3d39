// From rows of fields to card texts: which column holds which card field, and the rules every
// text import shares (rows without a front or a back are skipped with a message naming the line).
// A column named Tags (or Anki's tags column) gives the cards their tags, separated by spaces.
import { isClozeFront } from '../cloze';
import type { CardField } from '../deck';
import { normaliseTags } from '../tags';
import type { DelimitedRow } from './delimited';

/** A card read from text, before it gets an id; `line` is where its record starts. */
export interface ImportedCard {
  line: number;
  front: string;
  back: string;
  pronunciation: string;
  gender: string;
  example: string;
  /** Tags as read (normalised); [] when the text has no tags column. */
  tags: string[];
}

/** What a column holds: a card field, or the card's tags. */
export type ImportColumn = CardField | 'tags';

/** A row that was left out (or a value replaced), and why; line is null where lines mean nothing (JSON). */
export interface ImportProblem {
  line: number | null;
  message: string;
}

/** 'Line 7: ...' as the screens show a problem. */
export const describeProblem = (problem: ImportProblem) => (problem.line === null ? capitalise(problem.message) : `Line ${problem.line}: ${problem.message}`);

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

export interface CardsResult {
  cards: ImportedCard[];
  problems: ImportProblem[];
}

/** Without a header naming them, columns are read in this order (the order Anki export writes). */
export const DEFAULT_COLUMNS: readonly CardField[] = ['front', 'back', 'pronunciation', 'gender', 'example'];

const NAMES: Record<string, CardField> = {
  front: 'front',
  back: 'back',
  pronunciation: 'pronunciation',
  gender: 'gender',
  example: 'example',
  term: 'front',
  definition: 'back',
  word: 'front',
  translation: 'back',
  ipa: 'pronunciation',
};

/** The card field a column name stands for ('tags' for the tags), or null for a column we do not import. */
export function fieldForName(name: string): ImportColumn | null {
  const key = name.trim().toLowerCase();
  return key === 'tags' ? 'tags' : (NAMES[key] ?? null);
}

/**
 * When every non-empty field of `fields` names a card field, and front and back are among them,
 * the row is a header: the column layout it describes. Otherwise null.
 */
export function headerColumns(fields: readonly string[]): (ImportColumn | null)[] | null {
  const columns = fields.map(fieldForName);
  const named = fields.filter((field) => field.trim() !== '');
  if (named.length === 0 || named.some((field) => fieldForName(field) === null)) return null;
  return columns.includes('front') && columns.includes('back') ? columns : null;
}

/**
 * Cards from rows laid out as `columns` (null: a column that is ignored). Ragged rows are fine:
 * missing trailing fields are empty and extra ones ignored. Texts are trimmed.
 */
export function rowsToCards(rows: readonly DelimitedRow[], columns: readonly (ImportColumn | null)[] = DEFAULT_COLUMNS): CardsResult {
  const cards: ImportedCard[] = [];
  const problems: ImportProblem[] = [];
  for (const row of rows) {
    const card: ImportedCard = { line: row.line, front: '', back: '', pronunciation: '', gender: '', example: '', tags: [] };
    columns.forEach((field, index) => {
      if (field === null) return;
      const value = row.fields[index];
      if (field === 'tags') {
        if (value !== undefined) card.tags = normaliseTags([...card.tags, value]);
        return;
      }
      // A column named twice keeps its first non-empty value.
      if (value !== undefined && card[field] === '') card[field] = value.trim();
    });
    const problem = cardProblem(card, row.fields.length);
    if (problem) problems.push({ line: row.line, message: problem });
    else cards.push(card);
  }
  return { cards, problems };
}

export function cardProblem(card: Pick<ImportedCard, 'front' | 'back'>, fieldCount: number): string | null {
  if (card.front === '' && card.back === '') return 'the front and the back are empty; the row is skipped';
  // A cloze card holds its answers in its front: the back is optional (Anki's "Back Extra").
  if (card.back === '' && !isClozeFront(card.front)) {
    return fieldCount < 2 ? 'only one field was found, so there is no back; the row is skipped' : 'the back is empty; the row is skipped';
  }
  if (card.front === '') return 'the front is empty; the row is skipped';
  return null;
}

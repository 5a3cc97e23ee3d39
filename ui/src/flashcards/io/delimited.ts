// Delimited text (CSV, TSV, Anki's plain text) read and written by hand: RFC 4180 quoting, fields
// that span lines, a UTF-8 BOM dropped, and the line each record starts on kept for messages.

/** One record of a delimited file and the (1-based) line it starts on. */
export interface DelimitedRow {
  line: number;
  fields: string[];
}

export type Delimiter = '\t' | ';' | ',' | '|' | ' ' | (string & {});

export class ImportError extends Error {
  readonly line: number | null;
  constructor(message: string, line: number | null = null) {
    super(line === null ? message : `Line ${line}: ${message}`);
    this.name = 'ImportError';
    this.line = line;
  }
}

export const stripBom = (text: string) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

export interface TokenizeOptions {
  /** Lines starting with this (outside a quoted field, at the start of a record) are skipped. */
  comment?: string;
  /** Line number of the text's first line, when the text is a slice of a larger input. */
  firstLine?: number;
}

/**
 * Splits `text` into records of fields. A field that starts with `"` is quoted: it runs to the
 * next lone `"`, with `""` standing for one quote, and may hold the delimiter and line breaks.
 * Blank lines are skipped. An unclosed quote is an error naming the line where it opened.
 */
export function tokenize(text: string, delimiter: string, options: TokenizeOptions = {}): DelimitedRow[] {
  if (delimiter === '') throw new ImportError('the separator is empty');
  const source = stripBom(text);
  const rows: DelimitedRow[] = [];
  let line = options.firstLine ?? 1;
  let i = 0;
  const n = source.length;

  while (i < n) {
    // At the start of a record: skip blank and comment lines.
    const lineEnd = nextBreak(source, i);
    const rawLine = source.slice(i, lineEnd);
    if (rawLine.trim() === '' || (options.comment !== undefined && rawLine.startsWith(options.comment))) {
      i = skipBreak(source, lineEnd);
      line += 1;
      continue;
    }

    const start = line;
    const fields: string[] = [];
    let field = '';
    let atFieldStart = true;
    for (;;) {
      if (atFieldStart && source[i] === '"') {
        // Quoted field.
        const opened = line;
        i += 1;
        let closed = false;
        while (i < n) {
          const ch = source[i] ?? '';
          if (ch === '"') {
            if (source[i + 1] === '"') {
              field += '"';
              i += 2;
              continue;
            }
            i += 1;
            closed = true;
            break;
          }
          if (ch === '\r' || ch === '\n') {
            const after = skipBreak(source, i);
            field += '\n';
            i = after;
            line += 1;
            continue;
          }
          field += ch;
          i += 1;
        }
        if (!closed) throw new ImportError('a quoted field is not closed (a " is missing)', opened);
        atFieldStart = false;
        // Text between the closing quote and the delimiter is kept, as spreadsheets do.
        continue;
      }
      if (i >= n) break;
      const ch = source[i] ?? '';
      if (ch === '\r' || ch === '\n') {
        i = skipBreak(source, i);
        line += 1;
        break;
      }
      if (source.startsWith(delimiter, i)) {
        fields.push(field);
        field = '';
        atFieldStart = true;
        i += delimiter.length;
        continue;
      }
      field += ch;
      atFieldStart = false;
      i += 1;
    }
    fields.push(field);
    rows.push({ line: start, fields });
  }
  return rows;
}

function nextBreak(text: string, from: number): number {
  for (let i = from; i < text.length; i += 1) {
    const ch = text[i];
    if (ch === '\n' || ch === '\r') return i;
  }
  return text.length;
}

function skipBreak(text: string, at: number): number {
  if (text[at] === '\r' && text[at + 1] === '\n') return at + 2;
  return at < text.length ? at + 1 : at;
}

/** A field as written: quoted when it holds the delimiter, a line break or a quote. */
export function quoteField(value: string, delimiter: string, alsoQuoteIf?: (value: string) => boolean): string {
  const needs = value.includes(delimiter) || value.includes('\n') || value.includes('\r') || value.includes('"') || (alsoQuoteIf?.(value) ?? false);
  return needs ? `"${value.replaceAll('"', '""')}"` : value;
}

const CANDIDATES = ['\t', ';', ','] as const;
export type DetectedDelimiter = (typeof CANDIDATES)[number];

/**
 * The delimiter of a CSV/TSV text: of tab, `;` and `,`, the one found (outside quotes) on most of
 * the first lines, then the most often; ties go to tab, then `;` (what Excel writes in nl, fr and
 * hu), then `,`.
 */
export function detectDelimiter(text: string): DetectedDelimiter {
  const lines = stripBom(text)
    .split(/\r\n|\n|\r/)
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .slice(0, 20);
  let best: DetectedDelimiter = '\t';
  let bestScore: [number, number] = [-1, -1];
  for (const candidate of CANDIDATES) {
    let linesWith = 0;
    let total = 0;
    for (const line of lines) {
      const count = countOutsideQuotes(line, candidate);
      if (count > 0) linesWith += 1;
      total += count;
    }
    const score: [number, number] = [linesWith, total];
    if (score[0] > bestScore[0] || (score[0] === bestScore[0] && score[1] > bestScore[1])) {
      best = candidate;
      bestScore = score;
    }
  }
  return best;
}

function countOutsideQuotes(line: string, ch: string): number {
  let inQuotes = false;
  let count = 0;
  for (const c of line) {
    if (c === '"') inQuotes = !inQuotes;
    else if (c === ch && !inQuotes) count += 1;
  }
  return count;
}

// Anki's "Notes in Plain Text" format: written for a deck (tab-separated, with the #separator,
// #html and #columns header lines; pictures and sounds named as Anki names its media files) and
// read back, including files Anki itself exported.
import type { Card, CardField } from '../deck';
import { formatTags } from '../tags';
import { ankiFileNames, mediaMarkup } from './ankiMedia';
import { DEFAULT_COLUMNS, fieldForName, headerColumns, rowsToCards, type CardsResult, type ImportColumn } from './columns';
import { ImportError, quoteField, stripBom, tokenize } from './delimited';

export const ANKI_COLUMNS = ['Front', 'Back', 'Pronunciation', 'Gender', 'Example'] as const;

/** The card fields in ANKI_COLUMNS order. */
const ANKI_FIELDS: readonly CardField[] = ['front', 'back', 'pronunciation', 'gender', 'example'];

const escapeHtml = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\r\n|\n|\r/g, '<br>');

/**
 * The deck's cards as Anki plain text, one note per line, fields in ANKI_COLUMNS order; when any
 * card has tags, a last Tags column (space-separated, as Anki writes them) named by `#tags column:`.
 * A field with pictures or sounds carries them as Anki writes them (`<img src="name">`,
 * `[sound:name]`) under the names `names` gives each file (ankiMedia.ts); when any card has a
 * picture the file is HTML (`#html:true`), its texts escaped and line breaks written as <br>.
 */
export function writeAnki(cards: readonly Card[], names: ReadonlyMap<string, string> = ankiFileNames(cards)): string {
  const tagged = cards.some((card) => card.tags.length > 0);
  const html = cards.some((card) => card.media.some((ref) => ref.kind === 'image'));
  const columns = tagged ? [...ANKI_COLUMNS, 'Tags'] : ANKI_COLUMNS;
  const header = ['#separator:tab', `#html:${String(html)}`, `#columns:${columns.join('\t')}`];
  if (tagged) header.push(`#tags column:${columns.length}`);
  const fieldText = (card: Card, field: CardField) => {
    const text = html ? escapeHtml(card[field]) : card[field];
    const refs = card.media.filter((ref) => ref.field === field);
    if (refs.length === 0) return text;
    const markup = mediaMarkup(refs, names);
    return text === '' ? markup : `${text} ${markup}`;
  };
  const lines = cards.map((card) =>
    [...ANKI_FIELDS.map((field) => fieldText(card, field)), ...(tagged ? [formatTags(card.tags)] : [])]
      // A record starting with # would read as a comment line: quote such a first field.
      .map((value, index) => quoteField(value, '\t', index === 0 ? (v) => v.startsWith('#') : undefined))
      .join('\t'),
  );
  return `${[...header, ...lines].join('\n')}\n`;
}

const SEPARATORS: Record<string, string> = {
  tab: '\t',
  comma: ',',
  semicolon: ';',
  pipe: '|',
  space: ' ',
  colon: ':',
};

/** The separator a `#separator:` value names: a keyword (any case) or the literal string. */
export function separatorFromHeader(value: string): string {
  const known = SEPARATORS[value.trim().toLowerCase()];
  if (known) return known;
  if (value === '') throw new ImportError('the #separator: header has no value');
  return value;
}

/** True when the text starts with Anki header lines. */
export function looksLikeAnki(text: string): boolean {
  return /^#(separator|html|columns|notetype|deck|tags)( column)?:/im.test(stripBom(text).split(/\r?\n/).slice(0, 10).join('\n'));
}

/**
 * The deck an Anki export names in its `#deck:` header line, or null. Anki writes nested decks as
 * `Parent::Child`; the path is kept, readably, as "Parent › Child".
 */
export function ankiDeckName(text: string): string | null {
  for (const line of stripBom(text).split(/\r\n|\n|\r/)) {
    if (!line.startsWith('#')) break;
    const match = /^#deck:(.*)$/i.exec(line);
    if (match) {
      const name = (match[1] ?? '')
        .split('::')
        .map((part) => part.trim())
        .filter((part) => part !== '')
        .join(' › ');
      return name === '' ? null : name;
    }
  }
  return null;
}

export interface AnkiOptions {
  /** The separator to use when the text has no #separator: line (default tab). */
  fallbackSeparator?: string;
}

/** Cards from Anki plain text. Header lines set the separator, HTML handling and columns. */
export function readAnki(text: string, options: AnkiOptions = {}): CardsResult {
  const source = stripBom(text);
  const lines = source.split(/\r\n|\n|\r/);
  let separator = options.fallbackSeparator ?? '\t';
  let html = false;
  let columnsValue: string | null = null;
  // Columns Anki uses for other things than fields (1-based in the header lines); the tags column
  // is read as the cards' tags.
  const special = new Set<number>();
  let tagsColumn: number | null = null;
  let headerCount = 0;
  for (const [index, line] of lines.entries()) {
    const match = /^#([a-z ]+):(.*)$/i.exec(line);
    if (!match) {
      if (line.startsWith('#') || line.trim() === '') {
        headerCount = index + 1;
        continue;
      }
      break;
    }
    headerCount = index + 1;
    const key = (match[1] ?? '').toLowerCase();
    const value = match[2] ?? '';
    if (key === 'separator') separator = separatorFromHeader(value);
    else if (key === 'html') html = value.trim().toLowerCase() === 'true';
    else if (key === 'columns') columnsValue = value;
    else if (key.endsWith(' column')) {
      const column = Number.parseInt(value, 10);
      if (Number.isInteger(column) && column > 0) {
        special.add(column - 1);
        if (key === 'tags column') tagsColumn = column - 1;
      }
    }
  }
  // Columns are split with the separator, which may be declared after them.
  const names = columnsValue === null ? null : columnsValue.split(separator);
  const rows = tokenize(lines.slice(headerCount).join('\n'), separator, { comment: '#', firstLine: headerCount + 1 });
  let columns: (ImportColumn | null)[];
  if (names) {
    columns = names.map((name, index) => (index === tagsColumn ? 'tags' : special.has(index) ? null : fieldForName(name)));
    if (!columns.includes('front') || !columns.includes('back')) {
      // Anki's own note types name their fields freely: read them in order, skipping special ones.
      columns = positional(names.length, special, tagsColumn);
    }
  } else {
    const first = rows[0];
    const header = first ? headerColumns(first.fields) : null;
    if (header) rows.shift();
    columns = header ?? positional(Math.max(DEFAULT_COLUMNS.length + special.size, 0), special, tagsColumn);
  }
  const result = rowsToCards(rows, columns);
  if (!html) return result;
  return { ...result, cards: result.cards.map((card) => ({ ...card, ...mapFields(card, htmlToText) })) };
}

function positional(count: number, special: ReadonlySet<number>, tagsColumn: number | null = null): (ImportColumn | null)[] {
  const columns: (ImportColumn | null)[] = [];
  let next = 0;
  for (let index = 0; index < Math.max(count, tagsColumn === null ? 0 : tagsColumn + 1); index += 1) {
    if (index === tagsColumn) columns.push('tags');
    else if (special.has(index)) columns.push(null);
    else columns.push(DEFAULT_COLUMNS[next++] ?? null);
  }
  return columns;
}

function mapFields(card: Record<CardField, string>, fn: (value: string) => string): Record<CardField, string> {
  return {
    front: fn(card.front),
    back: fn(card.back),
    pronunciation: fn(card.pronunciation),
    gender: fn(card.gender),
    example: fn(card.example),
  };
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

/** Plain text of an Anki HTML field: <br> and block ends become line breaks, tags go, entities decode. */
export function htmlToText(value: string): string {
  return value
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(div|p|li)>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z0-9]+);/gi, (whole, name: string) => {
      if (name.startsWith('#x') || name.startsWith('#X')) return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
      if (name.startsWith('#') && name !== '#39') return String.fromCodePoint(Number.parseInt(name.slice(1), 10));
      return ENTITIES[name.toLowerCase()] ?? whole;
    })
    .trim();
}

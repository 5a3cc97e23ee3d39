// Anki field HTML to the plain text a Hearth card holds: tags dropped (script and style with their
// content), line breaks kept (<br>, block elements), entities decoded, whitespace collapsed as a
// browser would. Pure and DOM-free (it runs in a Worker). The text is only ever rendered as text.

/** Media a field referred to, which the plain text leaves out. */
export interface FieldMedia {
  images: string[];
  sounds: string[];
}

const NAMED: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ensp: ' ',
  emsp: ' ',
  thinsp: ' ',
  shy: '',
  zwj: '\u200d',
  zwnj: '\u200c',
  ndash: '–',
  mdash: '—',
  hellip: '…',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  laquo: '«',
  raquo: '»',
  bull: '•',
  middot: '·',
  deg: '°',
  times: '×',
  divide: '÷',
  plusmn: '±',
  copy: '©',
  reg: '®',
  trade: '™',
  euro: '€',
  pound: '£',
  yen: '¥',
  cent: '¢',
  sect: '§',
  para: '¶',
  iexcl: '¡',
  iquest: '¿',
  larr: '←',
  rarr: '→',
  uarr: '↑',
  darr: '↓',
  harr: '↔',
  aacute: 'á',
  eacute: 'é',
  iacute: 'í',
  oacute: 'ó',
  uacute: 'ú',
  agrave: 'à',
  egrave: 'è',
  igrave: 'ì',
  ograve: 'ò',
  ugrave: 'ù',
  acirc: 'â',
  ecirc: 'ê',
  icirc: 'î',
  ocirc: 'ô',
  ucirc: 'û',
  auml: 'ä',
  euml: 'ë',
  iuml: 'ï',
  ouml: 'ö',
  uuml: 'ü',
  atilde: 'ã',
  otilde: 'õ',
  ntilde: 'ñ',
  ccedil: 'ç',
  aring: 'å',
  aelig: 'æ',
  oslash: 'ø',
  szlig: 'ß',
  Aacute: 'Á',
  Eacute: 'É',
  Iacute: 'Í',
  Oacute: 'Ó',
  Uacute: 'Ú',
  Agrave: 'À',
  Egrave: 'È',
  Auml: 'Ä',
  Ouml: 'Ö',
  Uuml: 'Ü',
  Ntilde: 'Ñ',
  Ccedil: 'Ç',
  Aring: 'Å',
  AElig: 'Æ',
  Oslash: 'Ø',
};

/** Entities decoded: numeric ones and the common named ones; an unknown name stays as written. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z][a-zA-Z0-9]{1,31});/g, (whole, body: string) => {
    if (body.startsWith('#')) {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      // NUL, surrogates and numbers beyond Unicode become the replacement character, as in HTML.
      if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return '\ufffd';
      return String.fromCodePoint(code);
    }
    return NAMED[body] ?? whole;
  });
}

// Elements whose start and end begin a new line.
const BLOCK = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'dd',
  'div',
  'dl',
  'dt',
  'figcaption',
  'figure',
  'footer',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'tr',
  'ul',
]);
// Elements dropped with everything inside them: nothing in them is text for a learner.
const DROPPED = new Set(['script', 'style', 'template', 'noscript', 'iframe', 'object', 'svg', 'math', 'head', 'title']);

const TAG = /<!--[\s\S]*?(?:-->|$)|<!\[CDATA\[[\s\S]*?(?:\]\]>|$)|<[!?][^>]*(?:>|$)|<\/?([a-zA-Z][^\s/>]*)((?:[^>"']|"[^"]*"|'[^']*')*)(?:>|$)/g;
const SOUND = /\[sound:([^\]]*)\]/g;
const SRC = /\bsrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i;

/**
 * The plain text of a field, and the images and sounds it referred to. Whitespace collapses to
 * one space, lines are trimmed, and at most one empty line separates paragraphs.
 */
export function fieldToText(field: string, media: FieldMedia = { images: [], sounds: [] }): string {
  // Most fields of a large deck are plain words: no tag, entity, sound or NUL to look for.
  if (!/[<&[\0\n\r\t\f]| {2}/.test(field)) return field.trim();
  const html = field.replaceAll('\0', '');
  const parts: string[] = [];
  const pushText = (raw: string) => {
    const withoutSounds = raw.replace(SOUND, (_whole, name: string) => {
      media.sounds.push(decodeEntities(name));
      return ' ';
    });
    parts.push(decodeEntities(withoutSounds.replace(/[ \t\n\r\f]+/g, ' ')));
  };
  let last = 0;
  let dropping: string | null = null;
  TAG.lastIndex = 0;
  for (let match = TAG.exec(html); match; match = TAG.exec(html)) {
    if (dropping === null) pushText(html.slice(last, match.index));
    last = TAG.lastIndex;
    const name = match[1]?.toLowerCase();
    if (!name) continue;
    const closing = match[0][1] === '/';
    if (dropping !== null) {
      if (closing && name === dropping) dropping = null;
      continue;
    }
    if (DROPPED.has(name)) {
      if (!closing && !/\/\s*$/.test(match[2] ?? '')) dropping = name;
      continue;
    }
    if (name === 'br') parts.push('\n');
    else if (BLOCK.has(name)) parts.push('\0');
    else if (name === 'img' && !closing) {
      const src = SRC.exec(match[2] ?? '');
      const file = src ? (src[1] ?? src[2] ?? src[3] ?? '') : '';
      if (file !== '') media.images.push(decodeEntities(file));
    } else if ((name === 'td' || name === 'th') && closing) parts.push(' ');
  }
  if (dropping === null) pushText(html.slice(last));
  // NUL marks a soft break (a block's edge): a line break between texts, never an empty line.
  return parts
    .join('')
    .split('\n')
    .map((line) =>
      line
        .split('\0')
        .map((piece) => piece.replace(/ +/g, ' ').trim())
        .filter((piece) => piece !== '')
        .join('\n'),
    )
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

// The owner's About text (written on /owner, shown in the landing page's About dialog): plain
// text in which a blank line starts a paragraph, a single line end is a line break, and http://
// and https:// addresses are links. Parsed into parts that React renders as elements, so nothing
// the owner writes is ever read as HTML.

export type AboutPart = { kind: 'text'; text: string } | { kind: 'link'; href: string; text: string } | { kind: 'break' };

/** A paragraph: its parts in order. */
export type AboutParagraph = AboutPart[];

// An address runs to the next white space or angle bracket or quote.
const ADDRESS = /https?:\/\/[^\s<>"]+/gi;
// What a sentence puts after an address, not part of it.
const PUNCTUATION = new Set(['.', ',', ';', ':', '!', '?', "'", '’', '”', ']']);

const count = (text: string, char: string) => text.split(char).length - 1;

/** The address without the punctuation of the sentence it ends; a closing bracket is kept when it
 *  closes one the address opened, as Wikipedia's addresses do. */
export function trimAddress(candidate: string): string {
  let address = candidate;
  for (;;) {
    const last = address.slice(-1);
    const unmatched = last === ')' && count(address, '(') < count(address, ')');
    if (!PUNCTUATION.has(last) && !unmatched) return address;
    address = address.slice(0, -1);
  }
}

/** A link only for an address the URL parser takes, with a host, over http or https. */
function safeHref(address: string): string | null {
  try {
    const url = new URL(address);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' ? url.href : null;
  } catch {
    return null;
  }
}

function lineParts(line: string): AboutPart[] {
  const parts: AboutPart[] = [];
  let at = 0;
  const push = (text: string) => {
    if (text === '') return;
    const last = parts[parts.length - 1];
    if (last?.kind === 'text') last.text += text;
    else parts.push({ kind: 'text', text });
  };
  for (const match of line.matchAll(ADDRESS)) {
    const start = match.index;
    const address = trimAddress(match[0]);
    const href = safeHref(address);
    push(line.slice(at, start));
    if (href) parts.push({ kind: 'link', href, text: address });
    else push(address);
    at = start + address.length;
  }
  push(line.slice(at));
  return parts;
}

/** The text's paragraphs (none for a blank text). */
export function parseAboutText(text: string): AboutParagraph[] {
  const normalised = text.replace(/\r\n?/g, '\n');
  return normalised
    .split(/\n[ \t]*\n/)
    .map((block) =>
      block
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== ''),
    )
    .filter((lines) => lines.length > 0)
    .map((lines) => lines.flatMap((line, index) => (index === 0 ? lineParts(line) : [{ kind: 'break' } as const, ...lineParts(line)])));
}

/** Characters as the server counts them (code points, not UTF-16 units). */
export function characterCount(text: string): number {
  return Array.from(text.replace(/\r\n?/g, '\n').trim()).length;
}

// The file names an Anki export writes for a deck's pictures and sounds: one per file (by hash),
// safe for Anki's media folder on every system (no path separators, no characters Windows or
// Anki's [sound:…] syntax reject, at most 120 bytes as Anki allows) and unique (a second file with
// the same name gets "-2" before its extension). A field then carries <img src="name"> or
// [sound:name] as Anki writes them. Pure.
import type { MediaRef } from '../media/ref';

/** Anki's own limit on a media file name, in UTF-8 bytes. */
export const MAX_ANKI_NAME_BYTES = 120;

const utf8Length = (text: string) => new TextEncoder().encode(text).length;

function shorten(text: string, bytes: number): string {
  let out = text;
  while (out !== '' && utf8Length(out) > bytes) out = Array.from(out).slice(0, -1).join('');
  return out;
}

/** The name made safe: unsafe characters become "_", no leading dots or spaces, within Anki's length. */
export function safeAnkiName(name: string): string {
  let clean = name
    .normalize('NFC')
    // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
    .replace(/[\\/:*?"<>|[\]\u0000-\u001f\u007f]/g, '_')
    .replace(/^[.\s]+/, '')
    .trim();
  if (clean === '') clean = 'file';
  const dot = clean.lastIndexOf('.');
  const ext = dot > 0 && clean.length - dot <= 6 ? clean.slice(dot) : '';
  const stem = ext ? clean.slice(0, dot) : clean;
  return `${shorten(stem, MAX_ANKI_NAME_BYTES - utf8Length(ext)) || 'file'}${ext}`;
}

/** One safe, unique name per file the cards refer to, in the order the cards first mention them. */
export function ankiFileNames(cards: Iterable<{ readonly media: readonly MediaRef[] }>): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const card of cards) {
    for (const ref of card.media) {
      if (names.has(ref.hash)) continue;
      const base = safeAnkiName(ref.name);
      let name = base;
      for (let n = 2; taken.has(name.toLowerCase()); n += 1) {
        const dot = base.lastIndexOf('.');
        const stem = dot > 0 ? base.slice(0, dot) : base;
        const ext = dot > 0 ? base.slice(dot) : '';
        name = `${shorten(stem, MAX_ANKI_NAME_BYTES - utf8Length(`-${n}${ext}`))}-${n}${ext}`;
      }
      // Anki's media folder is case-insensitive on Windows and macOS: "Hund.mp3" and "hund.mp3" clash.
      taken.add(name.toLowerCase());
      names.set(ref.hash, name);
    }
  }
  return names;
}

const escapeAttribute = (name: string) => name.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** What a field carries for its files, as Anki writes them: pictures as <img>, sounds as [sound:]. */
export function mediaMarkup(refs: readonly MediaRef[], names: ReadonlyMap<string, string>): string {
  return refs
    .map((ref) => {
      const name = names.get(ref.hash) ?? safeAnkiName(ref.name);
      return ref.kind === 'image' ? `<img src="${escapeAttribute(name)}">` : `[sound:${name}]`;
    })
    .join(' ');
}

// Deck languages beyond the spec's four: which tags a deck may carry, the list the language select
// offers, the names screens show and the search over them. Pure apart from Intl (the browser's own
// language names, so no name list ships in the bundle).
//
// Where the list comes from: ISO 639-1, the two-letter codes (183 of them), is the set every
// browser, speech engine and dictionary names; Intl.DisplayNames gives each its English name and
// its own name ("Deutsch"), both searchable. Intl.supportedValuesOf has no list of languages, and
// the full IANA registry (8,000 tags) would bury the learner's language among dialects. A deck may
// still carry any well-formed language tag (yue, pt-BR, zh-Hant): the select offers one that is
// typed in full, and a stored one keeps working and shows as it is.

/** The spec's four (SPEC.md 9), offered first in this order. */
export const SPEC_LANGUAGES = ['en', 'nl', 'fr', 'hu'] as const;

/** ISO 639-1: every two-letter language code. */
export const ISO_639_1 = (
  'aa ab ae af ak am an ar as av ay az ba be bg bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz ee el en eo es et eu ' +
  'fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km ' +
  'kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om ' +
  'or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ' +
  'ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu'
).split(' ');

/** Longest tag a deck keeps (RFC 5646 advises room for 35 characters). */
const MAX_TAG_LENGTH = 35;
// A language subtag of 2 or 3 letters, then subtags of 1 to 8 letters or digits: no private-use
// (x-...) or grandfathered tags, which no voice or dictionary knows.
const TAG_SHAPE = /^[a-z]{2,3}(?:-[a-z0-9]{1,8})*$/i;

/** Whether `value` is a well-formed BCP 47 language tag a deck can carry ('de', 'pt-BR', 'yue'). */
export function isLanguageTag(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > MAX_TAG_LENGTH || !TAG_SHAPE.test(value)) return false;
  try {
    Intl.getCanonicalLocales(value);
    return true;
  } catch {
    return false;
  }
}

/** 'DE', 'PT-BR': how the pill and the editor's column heads show a language. */
export const langLabel = (code: string) => code.toUpperCase();

/** The primary language subtag, lower case: 'pt' of 'pt-BR'. */
export const primaryOf = (code: string) => (code.split('-')[0] ?? code).toLowerCase();

let englishNames: Intl.DisplayNames | null | undefined;
const nameCache = new Map<string, string>();

/** The English name of a language ('German', 'Brazilian Portuguese'); the code when unknown. */
export function languageName(code: string): string {
  const cached = nameCache.get(code);
  if (cached !== undefined) return cached;
  if (englishNames === undefined) {
    try {
      englishNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });
    } catch {
      englishNames = null;
    }
  }
  let name: string | undefined;
  try {
    name = englishNames?.of(code);
  } catch {
    name = undefined;
  }
  const result = name ?? code;
  nameCache.set(code, result);
  return result;
}

/** Whether the browser has a name of its own for `code`, i.e. it is a language it knows. */
export const isKnownLanguage = (code: string) => isLanguageTag(code) && languageName(code) !== code;

/** The language's name in itself ('Deutsch', '日本語'), or '' when the browser has none. */
function autonym(code: string): string {
  try {
    return new Intl.DisplayNames([code], { type: 'language', fallback: 'none' }).of(code) ?? '';
  } catch {
    return '';
  }
}

/** One language the select offers. */
export interface LanguageOption {
  code: string;
  /** English name, what the option shows. */
  name: string;
  /** Lower-cased, accent-free words a search matches: code, English name, own name. */
  words: string;
}

const fold = (value: string) => value.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

function option(code: string): LanguageOption {
  const name = languageName(code);
  return { code, name, words: fold(`${code} ${name} ${autonym(code)}`) };
}

let allOptions: LanguageOption[] | null = null;

/** Every language offered: the spec's four first, then the rest of ISO 639-1 by English name. */
export function languageOptions(): readonly LanguageOption[] {
  if (!allOptions) {
    const rest = ISO_639_1.filter((code) => !(SPEC_LANGUAGES as readonly string[]).includes(code))
      .map(option)
      .sort((a, b) => a.name.localeCompare(b.name, 'en'));
    allOptions = [...SPEC_LANGUAGES.map(option), ...rest];
  }
  return allOptions;
}

/**
 * The languages matching `query`, best first: an exact code, then names (English or own) that
 * start with it, then the rest that contain it. A query that is itself a language tag the browser
 * knows but the list has not ('yue', 'pt-BR') is offered too. A blank query gives the whole list.
 */
export function searchLanguages(query: string, options: readonly LanguageOption[] = languageOptions()): LanguageOption[] {
  const wanted = fold(query.trim());
  if (wanted === '') return [...options];
  const exact: LanguageOption[] = [];
  const starts: LanguageOption[] = [];
  const contains: LanguageOption[] = [];
  for (const entry of options) {
    if (entry.code.toLowerCase() === wanted) exact.push(entry);
    else if (entry.words.split(/\s+/).some((word) => word.startsWith(wanted)) || fold(entry.name).startsWith(wanted)) starts.push(entry);
    else if (entry.words.includes(wanted)) contains.push(entry);
  }
  const tag = query.trim();
  if (exact.length === 0 && isKnownLanguage(tag)) exact.push(option(tag));
  return [...exact, ...starts, ...contains];
}

/** The options to show for `value` (the deck's language) and a search: `value` always among them. */
export function optionsFor(value: string, matches: readonly LanguageOption[]): LanguageOption[] {
  if (matches.some((entry) => entry.code === value)) return [...matches];
  const current = languageOptions().find((entry) => entry.code === value) ?? option(value);
  return [current, ...matches];
}

/** What the screen reader hears after a search. */
export function searchStatus(query: string, matches: number): string {
  if (query.trim() === '') return '';
  if (matches === 0) return `No language matches “${query.trim()}”.`;
  return matches === 1 ? '1 language matches.' : `${matches} languages match.`;
}

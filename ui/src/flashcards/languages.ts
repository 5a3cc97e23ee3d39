// Deck languages beyond the spec's four: which tags a deck may carry, the list the language select
// offers, the names screens show and the search over them. Pure apart from Intl (the names of tags
// beyond the list, and each language's name in itself).
//
// Where the list comes from: ISO 639-1, the two-letter codes (183 of them), is the set every
// browser, speech engine and dictionary names; each has its English name here (NAMES) and, where
// the browser knows it, its own name from Intl.DisplayNames ("Deutsch"), both searchable.
// Intl.supportedValuesOf has no list of languages, and the full IANA registry (8,000 tags) would
// bury the learner's language among dialects. A deck may still carry any well-formed language tag
// (yue, pt-BR, zh-Hant): the select offers one that is typed in full, and a stored one keeps
// working and shows as it is.

/** The spec's four (SPEC.md 9), offered first in this order. */
export const SPEC_LANGUAGES = ['en', 'nl', 'fr', 'hu'] as const;

/**
 * ISO 639-1, every two-letter code, with its English name (CLDR's, as Intl gives it where the
 * browser has it): Chromium's Intl names only 132 of the 183, and names Twi "Akan" like Akan
 * itself, so the names are carried here (2 kB) and are the same in every browser.
 */
const NAMES: ReadonlyMap<string, string> = new Map(
  (
    'aa=Afar|ab=Abkhazian|ae=Avestan|af=Afrikaans|ak=Akan|am=Amharic|an=Aragonese|ar=Arabic|as=Assamese|' +
    'av=Avaric|ay=Aymara|az=Azerbaijani|ba=Bashkir|be=Belarusian|bg=Bulgarian|bi=Bislama|bm=Bambara|' +
    'bn=Bangla|bo=Tibetan|br=Breton|bs=Bosnian|ca=Catalan|ce=Chechen|ch=Chamorro|co=Corsican|cr=Cree|' +
    'cs=Czech|cu=Church Slavic|cv=Chuvash|cy=Welsh|da=Danish|de=German|dv=Divehi|dz=Dzongkha|ee=Ewe|' +
    'el=Greek|en=English|eo=Esperanto|es=Spanish|et=Estonian|eu=Basque|fa=Persian|ff=Fula|fi=Finnish|' +
    'fj=Fijian|fo=Faroese|fr=French|fy=Western Frisian|ga=Irish|gd=Scottish Gaelic|gl=Galician|gn=Guarani|' +
    'gu=Gujarati|gv=Manx|ha=Hausa|he=Hebrew|hi=Hindi|ho=Hiri Motu|hr=Croatian|ht=Haitian Creole|' +
    'hu=Hungarian|hy=Armenian|hz=Herero|ia=Interlingua|id=Indonesian|ie=Interlingue|ig=Igbo|ii=Sichuan Yi|' +
    'ik=Inupiaq|io=Ido|is=Icelandic|it=Italian|iu=Inuktitut|ja=Japanese|jv=Javanese|ka=Georgian|kg=Kongo|' +
    'ki=Kikuyu|kj=Kuanyama|kk=Kazakh|kl=Kalaallisut|km=Khmer|kn=Kannada|ko=Korean|kr=Kanuri|ks=Kashmiri|' +
    'ku=Kurdish|kv=Komi|kw=Cornish|ky=Kyrgyz|la=Latin|lb=Luxembourgish|lg=Ganda|li=Limburgish|ln=Lingala|' +
    'lo=Lao|lt=Lithuanian|lu=Luba-Katanga|lv=Latvian|mg=Malagasy|mh=Marshallese|mi=Māori|mk=Macedonian|' +
    'ml=Malayalam|mn=Mongolian|mr=Marathi|ms=Malay|mt=Maltese|my=Burmese|na=Nauru|nb=Norwegian Bokmål|' +
    'nd=North Ndebele|ne=Nepali|ng=Ndonga|nl=Dutch|nn=Norwegian Nynorsk|no=Norwegian|nr=South Ndebele|' +
    'nv=Navajo|ny=Nyanja|oc=Occitan|oj=Ojibwa|om=Oromo|or=Odia|os=Ossetic|pa=Punjabi|pi=Pali|pl=Polish|' +
    'ps=Pashto|pt=Portuguese|qu=Quechua|rm=Romansh|rn=Rundi|ro=Romanian|ru=Russian|rw=Kinyarwanda|' +
    'sa=Sanskrit|sc=Sardinian|sd=Sindhi|se=Northern Sami|sg=Sango|si=Sinhala|sk=Slovak|sl=Slovenian|' +
    'sm=Samoan|sn=Shona|so=Somali|sq=Albanian|sr=Serbian|ss=Swati|st=Southern Sotho|su=Sundanese|' +
    'sv=Swedish|sw=Swahili|ta=Tamil|te=Telugu|tg=Tajik|th=Thai|ti=Tigrinya|tk=Turkmen|tl=Filipino|' +
    'tn=Tswana|to=Tongan|tr=Turkish|ts=Tsonga|tt=Tatar|tw=Twi|ty=Tahitian|ug=Uyghur|uk=Ukrainian|ur=Urdu|' +
    'uz=Uzbek|ve=Venda|vi=Vietnamese|vo=Volapük|wa=Walloon|wo=Wolof|xh=Xhosa|yi=Yiddish|yo=Yoruba|' +
    'za=Zhuang|zh=Chinese|zu=Zulu'
  )
    .split('|')
    .map((entry) => entry.split('=') as [string, string]),
);

/** ISO 639-1: every two-letter language code. */
export const ISO_639_1 = [...NAMES.keys()];

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
  const carried = NAMES.get(code.toLowerCase());
  if (carried !== undefined) return carried;
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

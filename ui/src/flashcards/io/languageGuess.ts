// The languages of an imported deck, guessed from what the package says (issue 34): a language
// the fields declare (an HTML lang attribute, or a field named after a language: "German"), the
// script and the common words of the cards' text, and a language that the deck's name or its
// cards' tags name ("Spanish::Verbs", "deutsch"). The front's language is the deck's source, the
// back's its target; a cloze deck's back is an extra, so both are the text's. The import plan
// shows each guess with where it came from, and the learner can change it before storing. Pure.
import { ISO_639_1, languageName } from '../languages';

/** Where a side's language was found. */
export type GuessSource = 'declared' | 'text' | 'name';

export interface SideGuess {
  lang: string;
  from: GuessSource;
}

export interface DeckLanguageGuess {
  source: SideGuess | null;
  target: SideGuess | null;
}

export interface DeckEvidence {
  /** The deck's name as Anki shows it ("German::Verbs"). */
  name: string;
  /** The cards' tags. */
  tags: readonly string[];
  /** Names of the fields the fronts and the backs come from. */
  frontFields: readonly string[];
  backFields: readonly string[];
  /** The fronts' and backs' HTML (for lang attributes) and their text. */
  frontHtml: readonly string[];
  backHtml: readonly string[];
  fronts: readonly string[];
  backs: readonly string[];
  cloze: boolean;
}

/** How many texts of a side are read for its words (enough to be sure, few enough to be quick). */
const SAMPLE = 400;

// Common short words of the languages learners most often import, lower case. A word several
// languages share counts for each a little.
const COMMON: Record<string, string> = {
  en: 'the a an of to and is are was in it you that this for on with as at be not have he she they we my your what how',
  de: 'der die das den dem des ein eine einen und ist sind nicht ich du er sie es wir ihr zu mit von auf für im auch aber oder wie was noch sehr nur kein',
  fr: 'le la les un une des et est sont de du au aux ce cette je tu il elle nous vous ils ne pas que qui dans pour sur avec oui non très bonjour merci',
  es: 'el la los las un una unos unas y es son de del al que en por para con no muy pero como está yo tú él ella hola gracias',
  it: 'il lo la gli le un una uno e è di del della che in per con non sono io tu lui lei ciao grazie molto',
  pt: 'o a os as um uma e é de do da dos das que em no na por para com não sim você ele ela obrigado muito',
  nl: 'de het een en is van ik je jij hij zij wij niet dat die op met voor zijn was maar ook nog hoe wat',
  hu: 'a az egy és nem van vagy hogy is meg már csak igen köszönöm',
  sv: 'och att det som en ett är på för med jag du han hon inte av till',
  pl: 'i w na z nie się to jest że do jak ale co tak',
};

const WEIGHTS: Map<string, Map<string, number>> = (() => {
  const owners = new Map<string, string[]>();
  for (const [lang, words] of Object.entries(COMMON)) {
    for (const word of words.split(' ')) owners.set(word, [...(owners.get(word) ?? []), lang]);
  }
  const weights = new Map<string, Map<string, number>>();
  for (const [word, langs] of owners) weights.set(word, new Map(langs.map((lang) => [lang, 1 / langs.length])));
  return weights;
})();

// Letters only one language (of those above) writes, or nearly.
const LETTERS: [RegExp, string][] = [
  [/ß/u, 'de'],
  [/[ñ¿¡]/u, 'es'],
  [/[œ]/u, 'fr'],
  [/[ãõ]/u, 'pt'],
  [/[őű]/u, 'hu'],
  [/[ąęłśźżćń]/u, 'pl'],
  [/[å]/u, 'sv'],
];

// Scripts that name their language.
const SCRIPTS: [RegExp, string][] = [
  [/[\p{Script=Hiragana}\p{Script=Katakana}]/u, 'ja'],
  [/\p{Script=Hangul}/u, 'ko'],
  [/\p{Script=Han}/u, 'zh'],
  [/[іїєґ]/u, 'uk'],
  [/\p{Script=Cyrillic}/u, 'ru'],
  [/\p{Script=Greek}/u, 'el'],
  [/\p{Script=Hebrew}/u, 'he'],
  [/[پچژگ]/u, 'fa'],
  [/\p{Script=Arabic}/u, 'ar'],
  [/\p{Script=Thai}/u, 'th'],
  [/\p{Script=Devanagari}/u, 'hi'],
  [/\p{Script=Georgian}/u, 'ka'],
  [/\p{Script=Armenian}/u, 'hy'],
];

/** The language of texts from their script or their common words; null when they do not say clearly. */
export function textLanguage(texts: readonly string[]): string | null {
  const sample = texts.slice(0, SAMPLE).join('\n');
  if (sample.trim() === '') return null;
  // A script of its own: the first that is there (Japanese before Chinese: kana mark it).
  const letters = sample.match(/\p{L}/gu) ?? [];
  for (const [pattern, lang] of SCRIPTS) {
    const count = letters.filter((char) => pattern.test(char)).length;
    if (count > 0 && count * 3 >= letters.length) return lang;
  }
  const scores = new Map<string, number>();
  const add = (lang: string, score: number) => scores.set(lang, (scores.get(lang) ?? 0) + score);
  for (const word of sample.toLowerCase().split(/[^\p{L}]+/u)) {
    for (const [lang, weight] of WEIGHTS.get(word) ?? []) add(lang, weight);
  }
  for (const [pattern, lang] of LETTERS) if (pattern.test(sample)) add(lang, 2);
  const [best, second] = [...scores.entries()].sort((a, b) => b[1] - a[1]);
  if (!best || best[1] < 1.5) return null;
  return !second || best[1] >= 2 * second[1] ? best[0] : null;
}

const fold = (value: string) => value.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

let names: Map<string, string> | null = null;

/** Language names (English, and each in itself where the browser knows it) to their codes. */
function nameTable(): Map<string, string> {
  if (names) return names;
  names = new Map();
  for (const code of ISO_639_1) {
    const english = languageName(code);
    if (english !== code && english.length >= 4) names.set(fold(english), code);
    try {
      const own = new Intl.DisplayNames([code], { type: 'language', fallback: 'none' }).of(code);
      if (own && own.length >= 4) names.set(fold(own), code);
    } catch {
      // The browser has no name of it in itself.
    }
  }
  return names;
}

/** A language a text names as a word of its own ("Spanish::Verbs", "Deutsch A1"), or null. */
export function namedLanguage(text: string): string | null {
  const table = nameTable();
  const words = fold(text).split(/[^\p{L}]+/u);
  for (let i = 0; i < words.length; i += 1) {
    const pair = `${words[i] ?? ''} ${words[i + 1] ?? ''}`;
    const found = table.get(pair) ?? table.get(words[i] ?? '');
    if (found) return found;
  }
  return null;
}

/** A language declared in the fields' HTML (lang="de"), the same in most of them; else null. */
function declaredLanguage(html: readonly string[]): string | null {
  const counts = new Map<string, number>();
  for (const text of html.slice(0, SAMPLE)) {
    const lang = /\blang\s*=\s*["']?([a-z]{2,3})\b/i.exec(text)?.[1]?.toLowerCase();
    if (lang && ISO_639_1.includes(lang)) counts.set(lang, (counts.get(lang) ?? 0) + 1);
  }
  const [best] = [...counts.entries()].sort((a, b) => b[1] - a[1]);
  return best && best[1] * 2 >= Math.min(html.length, SAMPLE) ? best[0] : null;
}

/** A side's language: what its fields declare (markup, or a field named after a language), else its text's. */
function sideLanguage(fields: readonly string[], html: readonly string[], texts: readonly string[]): SideGuess | null {
  const declared =
    declaredLanguage(html) ??
    (fields.length > 0 && fields.every((name) => namedLanguage(name) === namedLanguage(fields[0] ?? '')) ? namedLanguage(fields[0] ?? '') : null);
  if (declared) return { lang: declared, from: 'declared' };
  const text = textLanguage(texts);
  return text ? { lang: text, from: 'text' } : null;
}

/**
 * The deck's source (front) and target (back) languages, each null when nothing says it. A
 * language the name or the tags name fills a side nothing else filled, the front first (a deck
 * named after a language holds its words on the front), unless the other side has it already.
 */
export function guessDeckLanguages(evidence: DeckEvidence): DeckLanguageGuess {
  let source = sideLanguage(evidence.frontFields, evidence.frontHtml, evidence.fronts);
  let target = evidence.cloze ? source : sideLanguage(evidence.backFields, evidence.backHtml, evidence.backs);
  const named = namedLanguage(evidence.name) ?? tagLanguage(evidence.tags);
  if (named && source?.lang !== named && target?.lang !== named) {
    if (!source) source = { lang: named, from: 'name' };
    else if (!target) target = { lang: named, from: 'name' };
  }
  if (evidence.cloze) target = source;
  return { source, target };
}

/** A language most tags that name one agree on ("spanish", "Deutsch::Verben"). */
function tagLanguage(tags: readonly string[]): string | null {
  const counts = new Map<string, number>();
  for (const tag of tags) {
    const lang = namedLanguage(tag);
    if (lang) counts.set(lang, (counts.get(lang) ?? 0) + 1);
  }
  const [best, second] = [...counts.entries()].sort((a, b) => b[1] - a[1]);
  return best && (!second || best[1] > second[1]) ? best[0] : null;
}

/** The words the import plan says beside a guess. */
export const GUESS_WORDS: Record<GuessSource, string> = {
  declared: 'as its fields say',
  text: 'from the cards’ text',
  name: 'from the deck’s name or tags',
};

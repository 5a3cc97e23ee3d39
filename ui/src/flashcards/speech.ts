// Choosing a speech synthesis voice for a deck language (pure: the voice list is passed in).
// A voice matches when its language is the side's language (en-GB for English, de for German,
// ...), or failing that the same language in another region; no match means no speaker button,
// and the practice card says in words that the device has no voice for that language.
import type { Language } from './deck';
import { languageName, primaryOf } from './languages';

/** The regions the spec's four are spoken in by default; any other tag is used as it is. */
export const SPEECH_TAGS: Readonly<Record<string, string>> = { en: 'en-GB', nl: 'nl-NL', fr: 'fr-FR', hu: 'hu-HU' };

/**
 * Codes that name the same language (old ISO codes some engines still report, and Norwegian,
 * whose voices say nb while a deck may say no).
 */
const SAME_LANGUAGE: Readonly<Record<string, readonly string[]>> = {
  he: ['iw'],
  iw: ['he'],
  id: ['in'],
  in: ['id'],
  yi: ['ji'],
  ji: ['yi'],
  no: ['nb'],
  nb: ['no'],
  tl: ['fil'],
  fil: ['tl'],
};

/** The parts of SpeechSynthesisVoice this choice needs. */
export interface VoiceLike {
  lang: string;
  name: string;
  localService: boolean;
  default: boolean;
}

const normalise = (tag: string) => tag.trim().replaceAll('_', '-').toLowerCase();

/** The tag an utterance in `language` carries: 'en-GB' for the spec's English, else the deck's tag. */
export function speechTag(language: Language): string {
  return SPEECH_TAGS[normalise(language)] ?? language;
}

/**
 * The best voice for `language`: an exact tag match before a same-language one, and among equals
 * a local voice (it works offline) before a network one, then the browser's default.
 */
export function pickVoice<V extends VoiceLike>(voices: readonly V[], language: Language): V | null {
  const wanted = normalise(speechTag(language));
  const primaries = [primaryOf(language), ...(SAME_LANGUAGE[primaryOf(language)] ?? [])];
  let best: V | null = null;
  let bestScore = -1;
  for (const voice of voices) {
    const tag = normalise(voice.lang);
    const exact = tag === wanted;
    const sameLanguage = primaries.some((primary) => tag === primary || tag.startsWith(`${primary}-`));
    if (!exact && !sameLanguage) continue;
    const score = (exact ? 4 : 0) + (voice.localService ? 2 : 0) + (voice.default ? 1 : 0);
    if (score > bestScore) {
      best = voice;
      bestScore = score;
    }
  }
  return best;
}

/** What the card says in place of the speaker when no voice speaks `language`. */
export function noVoiceMessage(language: Language): string {
  return `No ${languageName(language)} voice on this device`;
}

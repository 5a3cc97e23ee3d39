// Choosing a speech synthesis voice for a deck language (pure: the voice list is passed in).
// A voice matches when its language is the side's language (en-GB for English, ...), or failing
// that the same language in another region; no match means no speaker button.
import type { Language } from './deck';

export const SPEECH_TAGS: Record<Language, string> = { en: 'en-GB', nl: 'nl-NL', fr: 'fr-FR', hu: 'hu-HU' };

/** The parts of SpeechSynthesisVoice this choice needs. */
export interface VoiceLike {
  lang: string;
  name: string;
  localService: boolean;
  default: boolean;
}

const normalise = (tag: string) => tag.trim().replaceAll('_', '-').toLowerCase();

/**
 * The best voice for `language`: an exact tag match before a same-language one, and among equals
 * a local voice (it works offline) before a network one, then the browser's default.
 */
export function pickVoice<V extends VoiceLike>(voices: readonly V[], language: Language): V | null {
  const wanted = normalise(SPEECH_TAGS[language]);
  const primary = language;
  let best: V | null = null;
  let bestScore = -1;
  for (const voice of voices) {
    const tag = normalise(voice.lang);
    const exact = tag === wanted;
    const sameLanguage = tag === primary || tag.startsWith(`${primary}-`);
    if (!exact && !sameLanguage) continue;
    const score = (exact ? 4 : 0) + (voice.localService ? 2 : 0) + (voice.default ? 1 : 0);
    if (score > bestScore) {
      best = voice;
      bestScore = score;
    }
  }
  return best;
}

// The speaker button of the practice card: says the face's text with the Web Speech API in the
// side's language. It shows only when a voice for that language exists (voices arrive late, with
// 'voiceschanged'), speaks only when pressed, and keeps its clicks and keys from flipping the card.
import './SpeakButton.css';
import { useEffect, useState, type KeyboardEvent } from 'react';
import { Volume2 } from 'lucide-react';
import { LANGUAGES, type Language } from './deck';
import { pickVoice, SPEECH_TAGS } from './speech';

function synthesis(): SpeechSynthesis | null {
  if (typeof window === 'undefined' || !('speechSynthesis' in window) || typeof SpeechSynthesisUtterance !== 'function') return null;
  return window.speechSynthesis;
}

/** The browser's voices, updated when it announces more. */
export function useVoices(): readonly SpeechSynthesisVoice[] {
  const [voices, setVoices] = useState<readonly SpeechSynthesisVoice[]>(() => synthesis()?.getVoices() ?? []);
  useEffect(() => {
    const speech = synthesis();
    if (!speech) return;
    const update = () => setVoices(speech.getVoices());
    update();
    speech.addEventListener('voiceschanged', update);
    return () => speech.removeEventListener('voiceschanged', update);
  }, []);
  return voices;
}

interface Props {
  text: string;
  language: Language;
  voices: readonly SpeechSynthesisVoice[];
}

const languageName = (code: Language) => LANGUAGES.find((language) => language.code === code)?.name ?? code;

// Space and Enter press this button; the practice screen's window keys must not see them too.
const keepKey = (event: KeyboardEvent) => {
  if (event.key === ' ' || event.key === 'Enter') event.stopPropagation();
};

export function SpeakButton({ text, language, voices }: Props) {
  const voice = pickVoice(voices, language);
  const speech = synthesis();
  if (!voice || !speech || text.trim() === '') return null;
  return (
    <button
      type="button"
      className="icon-button speak-button"
      aria-label={`Pronounce “${text}” in ${languageName(language)}`}
      title="Listen"
      onPointerDown={(event) => event.stopPropagation()}
      onKeyDown={keepKey}
      onKeyUp={keepKey}
      onClick={(event) => {
        event.stopPropagation();
        speech.cancel();
        const utterance = new SpeechSynthesisUtterance(text);
        utterance.lang = SPEECH_TAGS[language];
        utterance.voice = voice;
        speech.speak(utterance);
      }}
    >
      <Volume2 aria-hidden="true" size={20} />
    </button>
  );
}

// The speaker button of the practice card: says the face's text with the Web Speech API in the
// side's language. It shows only when a voice for that language exists (voices arrive late, with
// 'voiceschanged'), speaks only when pressed, and keeps its clicks and keys from flipping the card.
// When the device has no voice for the language, the card says so in words instead, once the
// browser has had time to list its voices.
import './SpeakButton.css';
import { useEffect, useState, useSyncExternalStore, type KeyboardEvent } from 'react';
import { Volume2, VolumeX } from 'lucide-react';
import type { Language } from './deck';
import { languageName } from './languages';
import { noVoiceMessage, pickVoice, speechTag } from './speech';

function synthesis(): SpeechSynthesis | null {
  if (typeof window === 'undefined' || !('speechSynthesis' in window) || typeof SpeechSynthesisUtterance !== 'function') return null;
  return window.speechSynthesis;
}

/** Browsers list voices late and some never announce it; after this long an empty list is the answer. */
const VOICES_SETTLE_MS = 1500;

// Whether the voice list can be trusted: shared by every card, so the note does not wait again
// for each card.
let settled = false;
const listeners = new Set<() => void>();
function settle() {
  if (settled) return;
  settled = true;
  for (const listener of listeners) listener();
}
function subscribeSettled(listener: () => void) {
  listeners.add(listener);
  const speech = synthesis();
  if (!settled && (!speech || speech.getVoices().length > 0)) settle();
  const handle = settled ? 0 : window.setTimeout(settle, VOICES_SETTLE_MS);
  speech?.addEventListener('voiceschanged', settle);
  return () => {
    listeners.delete(listener);
    window.clearTimeout(handle);
    speech?.removeEventListener('voiceschanged', settle);
  };
}
const useVoicesSettled = () =>
  useSyncExternalStore(
    subscribeSettled,
    () => settled,
    () => false,
  );

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

// Space and Enter press this button; the practice screen's window keys must not see them too.
const keepKey = (event: KeyboardEvent) => {
  if (event.key === ' ' || event.key === 'Enter') event.stopPropagation();
};

export function SpeakButton({ text, language, voices }: Props) {
  const voice = pickVoice(voices, language);
  const speech = synthesis();
  const ready = useVoicesSettled();
  if (text.trim() === '') return null;
  if (!voice || !speech) {
    if (!ready) return null;
    return (
      <p className="speak-missing">
        <VolumeX aria-hidden="true" size={16} />
        {speech ? noVoiceMessage(language) : 'This browser cannot speak'}
      </p>
    );
  }
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
        utterance.lang = speechTag(language);
        utterance.voice = voice;
        speech.speak(utterance);
      }}
    >
      <Volume2 aria-hidden="true" size={20} />
    </button>
  );
}

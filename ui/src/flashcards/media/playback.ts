// The play controls' shared choices (slower at 0.75×, repeat), one for the whole page so they hold
// from card to card, and the one sound playing at a time. Also whether this browser can play a
// file's type (canPlayType), and the words when it cannot. DOM-light: the audio element is asked
// only when there is a document.
import { extensionOf } from './imageSize';

export const SLOWER_RATE = 0.75;

export interface PlaybackChoices {
  slower: boolean;
  repeat: boolean;
}

let choices: PlaybackChoices = { slower: false, repeat: false };
const listeners = new Set<() => void>();

export const playbackChoices = () => choices;

export function setPlaybackChoices(change: Partial<PlaybackChoices>): void {
  choices = { ...choices, ...change };
  for (const listener of listeners) listener();
}

export function subscribePlayback(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

let playing: HTMLAudioElement | null = null;

/** Starts `audio` from its start at the chosen speed, stopping any other sound first. */
export async function playOnly(audio: HTMLAudioElement): Promise<void> {
  if (playing && playing !== audio) playing.pause();
  playing = audio;
  audio.defaultPlaybackRate = choices.slower ? SLOWER_RATE : 1;
  audio.playbackRate = audio.defaultPlaybackRate;
  audio.loop = choices.repeat;
  audio.currentTime = 0;
  await audio.play();
}

/** Whether this browser says it may play `type` (canPlayType answers "maybe" or "probably"). */
export function canPlay(type: string): boolean {
  if (typeof document === 'undefined') return true;
  return document.createElement('audio').canPlayType(type) !== '';
}

/** The words for a sound this browser cannot play: "this browser cannot play .spx files". */
export function cannotPlayText(name: string): string {
  const extension = extensionOf(name);
  return extension === '' ? 'this browser cannot play this kind of sound file' : `this browser cannot play .${extension} files`;
}

// A play button for a sound: plays it (again from the start when pressed again), shows "Stop"
// while it plays, and says in words when this browser cannot play the file's format. Used by the
// editor's media list and by record-and-compare.
import { useEffect, useRef, useState } from 'react';
import { Play, Square } from 'lucide-react';

export function playProblem(type: string, name: string): string {
  const dot = name.lastIndexOf('.');
  const ext = dot > 0 ? name.slice(dot) : type;
  return `This browser cannot play ${ext} files.`;
}

/** Back to the start, paused or about to play (outside the component: the element is not React state). */
function rewind(element: HTMLAudioElement, toPlay: boolean): void {
  if (!toPlay) element.pause();
  element.currentTime = 0;
}

function makeAudio(url: string, onStop: () => void, onError: () => void): HTMLAudioElement {
  const element = new Audio(url);
  element.addEventListener('ended', onStop);
  element.addEventListener('pause', onStop);
  element.addEventListener('error', () => {
    onStop();
    onError();
  });
  return element;
}

interface Props {
  /** A blob: URL, or null while it loads. */
  url: string | null;
  type: string;
  name: string;
  /** What the button says ("Play original", "Play mine", "Play hund.mp3"). */
  label: string;
  className?: string;
}

export function PlayMedia({ url, type, name, label, className = '' }: Props) {
  const audio = useRef<HTMLAudioElement | null>(null);
  const [playing, setPlaying] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(
    () => () => {
      audio.current?.pause();
      audio.current = null;
    },
    [url],
  );

  const play = () => {
    if (!url) return;
    if (playing && audio.current) {
      rewind(audio.current, false);
      setPlaying(false);
      return;
    }
    const element =
      audio.current ??
      makeAudio(
        url,
        () => setPlaying(false),
        () => setProblem(playProblem(type, name)),
      );
    audio.current = element;
    if (element.canPlayType(type.split(';')[0] ?? type) === '' && element.canPlayType(type) === '') {
      setProblem(playProblem(type, name));
      return;
    }
    rewind(element, true);
    element.play().then(
      () => {
        setProblem(null);
        setPlaying(true);
      },
      () => setProblem(playProblem(type, name)),
    );
  };

  return (
    <span className={`play-media ${className}`}>
      <button type="button" className="button play-media__button" disabled={!url} onClick={play} aria-pressed={playing}>
        {playing ? <Square aria-hidden="true" size={16} /> : <Play aria-hidden="true" size={16} />}
        {label}
      </button>
      {problem && <span className="play-media__problem">{problem}</span>}
    </span>
  );
}

// A card's pictures and play controls, read from the media store by hash as object URLs (revoked
// when the card goes), in boxes of a fixed size so nothing moves when a picture arrives. Pictures
// are plain spans and images (they sit inside the practice card's button); the sounds' controls
// are buttons and sit outside it: a play button per sound at least 44 px on a phone, the shared
// "Slower (0.75×)" and "Repeat" choices, the words "this browser cannot play .spx files" where the
// browser says it cannot, and for a file this device lacks a placeholder in words while the
// registered fetcher (remote.ts) is asked for it.
import './CardMedia.css';
import { useEffect, useRef, useState, useSyncExternalStore, type KeyboardEvent } from 'react';
import { Pause, Play, Repeat, Snail } from 'lucide-react';
import { fetchMissing, hasMediaFetcher, onFetcherChange } from './remote';
import { soundType } from './imageSize';
import { canPlay, cannotPlayText, playbackChoices, playOnly, setPlaybackChoices, subscribePlayback } from './playback';
import type { MediaRef } from './ref';
import { mediaStore, type MediaStore } from './store';

type Loaded = { status: 'loading' } | { status: 'ready'; url: string; type: string } | { status: 'missing'; fetching: boolean };

/** The file `hash` as an object URL while the component shows it; asks the fetcher when it is not on this device. */
function useMediaUrl(hash: string, store: MediaStore = mediaStore): Loaded {
  const [loaded, setLoaded] = useState<Loaded>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => onFetcherChange(() => setAttempt((n) => n + 1)), []);
  useEffect(() => {
    // Whether the component still shows this file (an object, so the async reads see the cleanup).
    const shown = { live: true };
    let url: string | null = null;
    void (async () => {
      const read = () => store.get(hash).catch(() => undefined);
      let file = await read();
      if (!file && hasMediaFetcher()) {
        if (shown.live) setLoaded({ status: 'missing', fetching: true });
        if (await fetchMissing(hash)) file = await read();
      }
      if (!shown.live) return;
      if (!file) {
        setLoaded({ status: 'missing', fetching: false });
        return;
      }
      url = URL.createObjectURL(new Blob([file.bytes], { type: file.type }));
      setLoaded({ status: 'ready', url, type: file.type });
    })();
    return () => {
      shown.live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [hash, store, attempt]);
  return loaded;
}

const notHere = (what: string, name: string, fetching: boolean) => `${what} “${name}” is not on this device${fetching ? ' yet: fetching it…' : '.'}`;

/** One side's pictures; `compact` for the card list's small previews. */
export function CardPictures({ refs, compact = false }: { refs: readonly MediaRef[]; compact?: boolean }) {
  const pictures = refs.filter((ref) => ref.kind === 'image');
  if (pictures.length === 0) return null;
  return (
    <span className={`card-pictures${compact ? ' card-pictures--compact' : ''}`}>
      {pictures.map((ref) => (
        <Picture key={`${ref.field}:${ref.hash}`} media={ref} />
      ))}
    </span>
  );
}

function Picture({ media }: { media: MediaRef }) {
  const file = useMediaUrl(media.hash);
  return (
    <span className="card-pictures__frame">
      {file.status === 'ready' ? (
        // Anki keeps no description of a picture; the card's text beside it says what it shows.
        <img className="card-pictures__image" src={file.url} alt="" decoding="async" draggable={false} />
      ) : file.status === 'missing' ? (
        <span className="card-pictures__missing">{notHere('The picture', media.name, file.fetching)}</span>
      ) : null}
    </span>
  );
}

// Space and Enter press these buttons; the practice screen's window keys must not see them too.
const keepKey = (event: KeyboardEvent) => {
  if (event.key === ' ' || event.key === 'Enter') event.stopPropagation();
};

const usePlayback = () => useSyncExternalStore(subscribePlayback, playbackChoices, playbackChoices);

/** One side's sounds: a play control each, and the shared slower and repeat choices; `autoplay` plays the first when it is ready. */
export function CardSounds({ refs, autoplay = false }: { refs: readonly MediaRef[]; autoplay?: boolean }) {
  const sounds = refs.filter((ref) => ref.kind === 'sound');
  const { slower, repeat } = usePlayback();
  if (sounds.length === 0) return null;
  return (
    <div className="card-sounds" role="group" aria-label="Sounds">
      {sounds.map((ref, index) => (
        <Sound key={`${ref.field}:${ref.hash}`} media={ref} autoplay={autoplay && index === 0} />
      ))}
      <button
        type="button"
        className="button button--quiet card-sounds__choice"
        aria-pressed={slower}
        onKeyDown={keepKey}
        onKeyUp={keepKey}
        onClick={() => setPlaybackChoices({ slower: !slower })}
      >
        <Snail aria-hidden="true" size={16} />
        Slower (0.75×)
      </button>
      <button
        type="button"
        className="button button--quiet card-sounds__choice"
        aria-pressed={repeat}
        onKeyDown={keepKey}
        onKeyUp={keepKey}
        onClick={() => setPlaybackChoices({ repeat: !repeat })}
      >
        <Repeat aria-hidden="true" size={16} />
        Repeat
      </button>
    </div>
  );
}

function Sound({ media, autoplay }: { media: MediaRef; autoplay: boolean }) {
  const file = useMediaUrl(media.hash);
  const audio = useRef<HTMLAudioElement>(null);
  const [playing, setPlaying] = useState(false);
  const { slower, repeat } = usePlayback();
  const type = file.status === 'ready' ? file.type : (soundType(media.name) ?? '');
  const playable = type !== '' && canPlay(type);
  const ready = file.status === 'ready' && playable;

  // A choice changed while the sound plays applies at once.
  useEffect(() => {
    const element = audio.current;
    if (!element) return;
    element.playbackRate = slower ? 0.75 : 1;
    element.loop = repeat;
  }, [slower, repeat]);

  useEffect(() => {
    if (!ready || !autoplay || !audio.current) return;
    // A browser may refuse to play before the learner has touched the page; the button stays.
    playOnly(audio.current).catch(() => {});
  }, [ready, autoplay]);

  if (file.status === 'missing') return <p className="card-sounds__note">{notHere('The sound', media.name, file.fetching)}</p>;
  if (!playable) {
    return (
      <p className="card-sounds__note">
        “{media.name}”: {cannotPlayText(media.name)}
      </p>
    );
  }
  return (
    <>
      <button
        type="button"
        className="icon-button card-sounds__play"
        aria-label={`${playing ? 'Stop' : 'Play'} “${media.name}”`}
        title={playing ? 'Stop' : 'Play'}
        disabled={file.status !== 'ready'}
        onKeyDown={keepKey}
        onKeyUp={keepKey}
        onClick={() => {
          const element = audio.current;
          if (!element) return;
          if (playing) element.pause();
          else playOnly(element).catch(() => setPlaying(false));
        }}
      >
        {playing ? <Pause aria-hidden="true" size={20} /> : <Play aria-hidden="true" size={20} />}
      </button>
      {file.status === 'ready' && (
        <audio
          ref={audio}
          src={file.url}
          preload="auto"
          data-media-name={media.name}
          onPlay={() => setPlaying(true)}
          onPause={() => setPlaying(false)}
          onEnded={() => setPlaying(false)}
        />
      )}
    </>
  );
}

/** A card's pictures and sounds together (the card list). */
export function CardMedia({ refs }: { refs: readonly MediaRef[] }) {
  if (refs.length === 0) return null;
  return (
    <div className="card-media">
      <CardPictures refs={refs} compact />
      <CardSounds refs={refs} />
    </div>
  );
}

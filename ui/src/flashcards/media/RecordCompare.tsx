// Record-and-compare on the practice screen: on a card with a recording, the learner records their
// own attempt and hears both, "Play original" and "Play mine". Their attempt stays in this tab's
// memory only (a blob: URL dropped with the card): it is never stored, synced or exported. The
// controls keep their place while the other side shows (hidden, not removed), so flipping the card
// moves nothing.
import './media.css';
import { useCallback, useEffect, useState } from 'react';
import { Mic, Square } from 'lucide-react';
import { compareSound } from './cardMedia';
import { PlayMedia } from './PlayMedia';
import type { MediaRef } from './ref';
import { useMediaUrl } from './useMediaUrl';
import { useRecorder, type Recording } from './useRecorder';

interface Props {
  media: readonly MediaRef[];
  /** Whether the side the recording belongs to is showing (the field decides the side). */
  showing: (field: MediaRef['field']) => boolean;
}

function Compare({ original, visible }: { original: MediaRef; visible: boolean }) {
  const source = useMediaUrl(original.hash);
  const [mine, setMine] = useState<{ url: string; type: string } | null>(null);
  const onRecorded = useCallback((recording: Recording) => {
    setMine({ url: URL.createObjectURL(recording.blob), type: recording.type });
  }, []);
  const recorder = useRecorder(onRecorded);
  useEffect(
    () => () => {
      if (mine) URL.revokeObjectURL(mine.url);
    },
    [mine],
  );
  const recording = recorder.state !== 'idle';
  // The other side showing: the controls keep their room but cannot be reached.
  const stop = recorder.stop;
  useEffect(() => {
    if (!visible) stop();
  }, [visible, stop]);

  return (
    <div className="record-compare" role="group" aria-label="Compare your pronunciation" style={visible ? undefined : { visibility: 'hidden' }}>
      <PlayMedia
        url={source.status === 'ready' ? source.url : null}
        type={source.status === 'ready' ? source.type : ''}
        name={original.name}
        label="Play original"
      />
      {recording ? (
        <button type="button" className="button button--danger" onClick={recorder.stop}>
          <Square aria-hidden="true" size={16} /> Stop recording
        </button>
      ) : (
        <button type="button" className="button" onClick={() => void recorder.start()}>
          <Mic aria-hidden="true" size={16} /> {mine ? 'Record again' : 'Record my attempt'}
        </button>
      )}
      <PlayMedia url={mine?.url ?? null} type={mine?.type ?? ''} name="mine" label="Play mine" />
      <span className="record-compare__clock" role="timer">
        {recording ? recorder.clock : ''}
      </span>
      {source.status === 'missing' && <p className="record-compare__problem">The original recording is not on this device yet.</p>}
      {recorder.error && (
        <p className="record-compare__problem" role="alert">
          {recorder.error}
        </p>
      )}
    </div>
  );
}

/** Nothing on a card without a sound; the compare controls on one with. */
export function RecordCompare({ media, showing }: Props) {
  const original = compareSound(media);
  if (!original) return null;
  return <Compare original={original} visible={showing(original.field)} />;
}

// The editor's "Pictures and sounds" for one card: a button in the card's row opening a dialog
// where the learner adds a picture (chosen from files, pasted, or taken with the phone's camera),
// records their voice, or adds a sound file, each onto the side they choose. A picture is checked
// from its header, resized in the browser and kept as WebP (JPEG where the browser does not write
// WebP, said so); every file is kept in the media store before the card refers to it.
import './media.css';
import { useCallback, useEffect, useId, useRef, useState, type ChangeEvent, type ClipboardEvent, type Dispatch } from 'react';
import { Camera, ImagePlus, Mic, Music, Square, X } from 'lucide-react';
import type { Card } from '../deck';
import type { EditorAction } from '../editor';
import { addMediaRef, DEFAULT_FIELD } from './cardMedia';
import { formatBytes, MAX_RECORDING_MS, MAX_SOUND_FILE_BYTES, formatClock } from './limits';
import { mediaName } from './recorder';
import type { MediaField, MediaKind, MediaRef } from './ref';
import { preparePicture } from './resize';
import { mediaStore, MediaStoreError } from './store';
import { useRecorder, type Recording } from './useRecorder';

const isPhone = () => typeof window.matchMedia === 'function' && window.matchMedia('(pointer: coarse)').matches;

function SideChoice({ legend, name, value, onChange }: { legend: string; name: string; value: MediaField; onChange: (field: MediaField) => void }) {
  return (
    <fieldset className="add-media__sides">
      <legend>{legend}</legend>
      {(['front', 'back'] as const).map((field) => (
        <label key={field} className="add-media__side">
          <input type="radio" name={name} value={field} checked={value === field} onChange={() => onChange(field)} />
          {field === 'front' ? 'Front' : 'Back'}
        </label>
      ))}
    </fieldset>
  );
}

interface Props {
  card: Card;
  n: number;
  dispatch: Dispatch<EditorAction>;
}

function AddMediaDialog({ card, n, dispatch, onClose }: Props & { onClose: () => void }) {
  const id = useId();
  const dialog = useRef<HTMLDialogElement>(null);
  const pictureInput = useRef<HTMLInputElement>(null);
  const cameraInput = useRef<HTMLInputElement>(null);
  const soundInput = useRef<HTMLInputElement>(null);
  const [pictureField, setPictureField] = useState<MediaField>(DEFAULT_FIELD.image);
  const [soundField, setSoundField] = useState<MediaField>(DEFAULT_FIELD.sound);
  const [status, setStatus] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [phone] = useState(isPhone);
  // Files are kept asynchronously: the card as it is when each is ready gets the reference.
  const latest = useRef(card);
  useEffect(() => {
    latest.current = card;
  }, [card]);

  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
  }, []);

  const keep = useCallback(
    async (bytes: ArrayBuffer, type: string, kind: MediaKind, field: MediaField, name: (hash: string) => string, said: string) => {
      let hash: string;
      try {
        hash = await mediaStore.put(bytes, type);
      } catch (problem) {
        throw new Error(problem instanceof MediaStoreError ? problem.message : `The file could not be kept: ${String(problem)}`, { cause: problem });
      }
      const ref: MediaRef = { hash, name: name(hash), kind, field };
      const added = addMediaRef(latest.current.media, ref);
      if (!added.ok) throw new Error(added.error);
      dispatch({ type: 'setMedia', id: latest.current.id, media: added.media });
      setStatus(said);
    },
    [dispatch],
  );

  const run = useCallback(async (work: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    setStatus('');
    try {
      await work();
    } catch (problem) {
      setError(problem instanceof Error ? problem.message : String(problem));
    } finally {
      setBusy(false);
    }
  }, []);

  const addPicture = (file: File | Blob, original?: string) =>
    run(async () => {
      setStatus('Preparing the picture…');
      const picture = await preparePicture(file);
      const format = picture.fellBackToJpeg ? 'JPEG, as this browser does not write WebP pictures' : 'WebP';
      await keep(
        picture.bytes,
        picture.type,
        'image',
        pictureField,
        (hash) => mediaName(hash, picture.type, 'picture', original),
        `Picture added to the ${pictureField} of card ${n}: ${picture.width} × ${picture.height} pixels, kept as ${format}.`,
      );
    });

  const onPicture = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (file) void addPicture(file, file.name);
  };

  const onSound = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    event.target.value = '';
    if (!file) return;
    void run(async () => {
      if (file.size > MAX_SOUND_FILE_BYTES)
        throw new Error(`This sound file is ${formatBytes(file.size)}; sound files up to ${formatBytes(MAX_SOUND_FILE_BYTES)} can be added.`);
      if (file.size === 0) throw new Error('This sound file is empty.');
      const type = file.type !== '' ? file.type : 'audio/mpeg';
      if (!type.startsWith('audio/')) throw new Error('This file is not a sound: choose an MP3, M4A, OGG, WebM or WAV file.');
      await keep(
        await file.arrayBuffer(),
        type,
        'sound',
        soundField,
        (hash) => mediaName(hash, type, 'sound', file.name),
        `${file.name} added to the ${soundField} of card ${n}.`,
      );
    });
  };

  const onRecorded = useCallback(
    (recording: Recording) =>
      void run(async () => {
        await keep(
          await recording.blob.arrayBuffer(),
          recording.type,
          'sound',
          soundField,
          (hash) => mediaName(hash, recording.type, 'recording'),
          `Recording of ${formatClock(recording.ms)} added to the ${soundField} of card ${n}.`,
        );
      }),
    [keep, run, soundField, n],
  );
  const recorder = useRecorder(onRecorded);
  const recording = recorder.state !== 'idle';

  const onPaste = (event: ClipboardEvent) => {
    const file = Array.from(event.clipboardData.files).find((item) => item.type.startsWith('image/'));
    if (!file) return;
    event.preventDefault();
    void addPicture(file);
  };

  const close = () => {
    recorder.stop();
    dialog.current?.close();
  };

  return (
    <dialog
      ref={dialog}
      className="dialog add-media"
      aria-labelledby={`${id}-title`}
      onClose={onClose}
      onPaste={onPaste}
      onClick={(event) => {
        if (event.target === dialog.current) close();
      }}
    >
      <div className="dialog__panel">
        <div className="dialog__header">
          <h2 id={`${id}-title`}>Pictures and sounds for card {n}</h2>
          <button type="button" className="icon-button" aria-label="Close" onClick={close}>
            <X aria-hidden="true" size={18} />
          </button>
        </div>

        <section className="add-media__group" aria-labelledby={`${id}-pictures`}>
          <h3 id={`${id}-pictures`}>Picture</h3>
          <SideChoice legend="Show pictures on the" name={`${id}-picture-side`} value={pictureField} onChange={setPictureField} />
          <div className="add-media__buttons">
            <button type="button" className="button" disabled={busy} onClick={() => pictureInput.current?.click()}>
              <ImagePlus aria-hidden="true" size={16} /> Choose a picture
            </button>
            {phone && (
              <button type="button" className="button" disabled={busy} onClick={() => cameraInput.current?.click()}>
                <Camera aria-hidden="true" size={16} /> Take a photo
              </button>
            )}
          </div>
          <p className="hint">Or paste a picture while this dialog is open. Pictures are made at most 1024 pixels on their longer side.</p>
          <input
            ref={pictureInput}
            className="visually-hidden"
            type="file"
            accept="image/*"
            tabIndex={-1}
            aria-hidden="true"
            data-media-input="picture"
            onChange={onPicture}
          />
          <input
            ref={cameraInput}
            className="visually-hidden"
            type="file"
            accept="image/*"
            capture="environment"
            tabIndex={-1}
            aria-hidden="true"
            data-media-input="camera"
            onChange={onPicture}
          />
        </section>

        <section className="add-media__group" aria-labelledby={`${id}-sounds`}>
          <h3 id={`${id}-sounds`}>Sound</h3>
          <SideChoice legend="Play sounds on the" name={`${id}-sound-side`} value={soundField} onChange={setSoundField} />
          <div className="add-media__buttons">
            {recording ? (
              <button type="button" className="button button--danger add-media__record" onClick={recorder.stop}>
                <Square aria-hidden="true" size={16} /> Stop recording
              </button>
            ) : (
              <button type="button" className="button add-media__record" disabled={busy} onClick={() => void recorder.start()}>
                <Mic aria-hidden="true" size={16} /> Record your voice
              </button>
            )}
            <button type="button" className="button" disabled={busy || recording} onClick={() => soundInput.current?.click()}>
              <Music aria-hidden="true" size={16} /> Add a sound file
            </button>
          </div>
          <p className="add-media__clock" role="timer">
            {recording ? `Recording ${recorder.clock}` : `Recordings stop by themselves after ${formatClock(MAX_RECORDING_MS)}.`}
          </p>
          <input
            ref={soundInput}
            className="visually-hidden"
            type="file"
            accept="audio/*"
            tabIndex={-1}
            aria-hidden="true"
            data-media-input="sound"
            onChange={onSound}
          />
        </section>

        <p className="add-media__status" role="status">
          {status}
        </p>
        {(error ?? recorder.error) && (
          <p className="alert" role="alert">
            {error ?? recorder.error}
          </p>
        )}
        <div className="question-dialog__actions">
          <button type="button" className="button button--primary" onClick={close}>
            Done
          </button>
        </div>
      </div>
    </dialog>
  );
}

/** The row's button; the dialog exists only while it is open. */
export function AddMediaButton({ card, n, dispatch }: Props) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  return (
    <>
      <button
        ref={button}
        type="button"
        className="icon-button"
        data-action="media"
        aria-label={`Pictures and sounds of card ${n}`}
        title="Pictures and sounds"
        aria-haspopup="dialog"
        onClick={() => setOpen(true)}
      >
        <ImagePlus aria-hidden="true" size={16} />
      </button>
      {open && (
        <AddMediaDialog
          card={card}
          n={n}
          dispatch={dispatch}
          onClose={() => {
            setOpen(false);
            button.current?.focus();
          }}
        />
      )}
    </>
  );
}

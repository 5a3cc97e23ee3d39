// Recording the learner's voice with MediaRecorder in the format the browser records
// (recorder.ts picks it), with the time so far for a visible clock and a length limit at which the
// recording stops by itself. A refused or missing microphone is said in words. The microphone is
// released as soon as a recording ends (the browser's recording sign goes out).
import { useCallback, useEffect, useRef, useState } from 'react';
import { MAX_RECORDING_MS, formatClock } from './limits';
import { chooseRecorderType } from './recorder';

export type RecorderState = 'idle' | 'starting' | 'recording';

export interface Recording {
  readonly blob: Blob;
  readonly type: string;
  readonly ms: number;
}

/** A microphone that could not be used, in words. */
export function microphoneProblem(error: unknown): string {
  const name = error instanceof DOMException ? error.name : '';
  if (name === 'NotAllowedError' || name === 'SecurityError') {
    return "The microphone was refused, so nothing was recorded. To record, allow the microphone for this site in the browser's settings.";
  }
  if (name === 'NotFoundError' || name === 'OverconstrainedError') return 'No microphone was found on this device.';
  if (name === 'NotReadableError') return 'The microphone is in use by another app, or the device would not start it.';
  return `The microphone could not be started: ${error instanceof Error ? error.message : String(error)}`;
}

export function useRecorder(onRecorded: (recording: Recording) => void) {
  const [state, setState] = useState<RecorderState>('idle');
  const [elapsed, setElapsed] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const recorder = useRef<MediaRecorder | null>(null);
  const stream = useRef<MediaStream | null>(null);
  const timer = useRef(0);
  const latest = useRef(onRecorded);
  /** False once the screen is gone: a recording stopped then is dropped. */
  const alive = useRef(true);
  useEffect(() => {
    latest.current = onRecorded;
  }, [onRecorded]);

  const release = useCallback(() => {
    window.clearInterval(timer.current);
    stream.current?.getTracks().forEach((track) => track.stop());
    stream.current = null;
  }, []);

  const stop = useCallback(() => {
    const current = recorder.current;
    if (current && current.state !== 'inactive') current.stop();
  }, []);

  const start = useCallback(async () => {
    if (recorder.current && recorder.current.state !== 'inactive') return;
    setError(null);
    // Old browsers and pages outside a secure context lack both.
    if (typeof MediaRecorder === 'undefined' || !('mediaDevices' in navigator)) {
      setError('This browser cannot record sound.');
      return;
    }
    setState('starting');
    let media: MediaStream;
    try {
      media = await navigator.mediaDevices.getUserMedia({ audio: true });
    } catch (problem) {
      setState('idle');
      setError(microphoneProblem(problem));
      return;
    }
    stream.current = media;
    const type = chooseRecorderType((candidate) => MediaRecorder.isTypeSupported(candidate));
    let made: MediaRecorder;
    try {
      made = new MediaRecorder(media, type ? { mimeType: type } : undefined);
    } catch (problem) {
      release();
      setState('idle');
      setError(`This browser could not start recording: ${problem instanceof Error ? problem.message : String(problem)}`);
      return;
    }
    const chunks: Blob[] = [];
    const began = performance.now();
    made.addEventListener('dataavailable', (event) => {
      if (event.data.size > 0) chunks.push(event.data);
    });
    made.addEventListener('stop', () => {
      const ms = Math.min(performance.now() - began, MAX_RECORDING_MS);
      release();
      if (!alive.current) return;
      recorder.current = null;
      setState('idle');
      setElapsed(0);
      const kept = made.mimeType || chunks[0]?.type || type || 'audio/webm';
      const blob = new Blob(chunks, { type: kept });
      if (blob.size === 0) setError('Nothing was recorded: the microphone sent no sound.');
      else latest.current({ blob, type: kept, ms });
    });
    recorder.current = made;
    made.start(250);
    setElapsed(0);
    setState('recording');
    timer.current = window.setInterval(() => {
      const ms = performance.now() - began;
      setElapsed(Math.min(ms, MAX_RECORDING_MS));
      // The length limit: the recording stops by itself.
      if (ms >= MAX_RECORDING_MS) stop();
    }, 200);
  }, [release, stop]);

  // Leaving the screen mid-recording drops it and frees the microphone.
  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
      const current = recorder.current;
      recorder.current = null;
      if (current && current.state !== 'inactive') {
        try {
          current.stop();
        } catch {
          // Already stopped.
        }
      }
      window.clearInterval(timer.current);
      stream.current?.getTracks().forEach((track) => track.stop());
    };
  }, []);

  return { state, elapsed, error, start, stop, clock: `${formatClock(elapsed)} of ${formatClock(MAX_RECORDING_MS)}` };
}

// An editor's unsaved work kept on the way out (drafts.ts's rules): written when the tab is
// hidden, closed or reloaded and when the editor goes, and in-app navigation held back (a question
// for the screen to ask) only when the draft could not be written. Needs the data router
// (RouterApp.tsx) for useBlocker.
import { useEffect, useRef } from 'react';
import { useBlocker, type Blocker } from 'react-router';
import { mustAskBeforeUnload, shouldConfirmLeave } from './drafts';

export interface DraftKeeping {
  /** Whether there are changes not saved yet, now. */
  dirty: () => boolean;
  /** The editor itself is leaving (after a save or a delete) or nothing is left to keep. */
  settled: () => boolean;
  /** Writes the draft now; false when it could not be written. */
  write: () => boolean;
}

/** Keeps the draft on every way out; the blocker is 'blocked' while the screen must ask. */
export function useDraftKeeping(keeping: DraftKeeping): Blocker {
  // The latest callbacks, read when the browser or the router asks (never a stale editor state).
  const latest = useRef(keeping);
  useEffect(() => {
    latest.current = keeping;
  });

  useEffect(() => {
    const flush = () => {
      const { dirty, settled, write } = latest.current;
      if (!settled() && dirty()) write();
    };
    const onHide = () => {
      if (document.visibilityState === 'hidden') flush();
    };
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      const { dirty, settled, write } = latest.current;
      if (settled() || !dirty()) return;
      if (mustAskBeforeUnload({ dirty: true, draftKept: write() })) event.preventDefault();
    };
    window.addEventListener('pagehide', flush);
    window.addEventListener('beforeunload', onBeforeUnload);
    document.addEventListener('visibilitychange', onHide);
    return () => {
      window.removeEventListener('pagehide', flush);
      window.removeEventListener('beforeunload', onBeforeUnload);
      document.removeEventListener('visibilitychange', onHide);
      flush();
    };
  }, []);

  return useBlocker(({ currentLocation, nextLocation }) => {
    const { dirty, settled, write } = latest.current;
    return shouldConfirmLeave({ dirty: dirty(), allowed: settled(), from: currentLocation.pathname, to: nextLocation.pathname, keepDraft: write });
  });
}

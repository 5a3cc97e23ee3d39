// Screens' view of shares that follow the deck (shareUpdates.ts): re-rendered when a state changes,
// and a copy's link asked about while the screen is visible (a cheap 304 when nothing is new).
import { useEffect, useSyncExternalStore } from 'react';
import { checkCopy, COPY_POLL_MS, shareUpdatesRevision, subscribeShareUpdates } from './shareUpdates';

/** Re-renders the caller whenever a share's or copy's state changes. */
export function useShareUpdates(): number {
  return useSyncExternalStore(subscribeShareUpdates, shareUpdatesRevision, shareUpdatesRevision);
}

/** Asks now, every COPY_POLL_MS while the page is visible, and when it becomes visible again. */
export function useCopyWatch(deckId: string, enabled: boolean) {
  useEffect(() => {
    if (!enabled) return;
    const ask = () => {
      if (document.visibilityState === 'visible') void checkCopy(deckId);
    };
    ask();
    const timer = setInterval(ask, COPY_POLL_MS);
    document.addEventListener('visibilitychange', ask);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', ask);
    };
  }, [deckId, enabled]);
}

// The editor's feed requests: the opening read, Refetch and further pages of sample events. Only
// the newest request's answer reaches the state; one that comes after a newer request was made,
// or after the editor closed, is dropped.
import { useCallback, useEffect, useRef, type Dispatch } from 'react';
import { fetchFeed, UNREACHABLE, type FeedAnswer, type FeedOptions } from './api';
import type { EditorAction } from './editor';
import { withSiteKey } from '../lib/siteKey';
import { failureText } from './failure';
import { aboutTheVisitor } from './publish';
import { browserKeyDeps } from './publishKeyPrompt';
import { move, PAGE_SIZE, type Samples } from './samples';

export const FEED_ERROR = 'Failed to fetch/parse ICS. Check CORS or URL.';

/**
 * The alert for a failed feed read: the spec's text, then the server's reason in words on its own
 * line (after the input's name when the server names one: the feed address). Being throttled or
 * refused the key is not a problem with the feed: those words stand alone. Null when the server
 * itself could not be reached (offline): the editor says so inline instead.
 */
export function feedFailure(message: string, status: number, error: unknown = null): string | null {
  if (status === 0 && message === UNREACHABLE) return null;
  return aboutTheVisitor(status) ? message : `${FEED_ERROR}\n${failureText(message, error)}`;
}

export interface EditorFeed {
  /** Reads the whole feed again, asking upstream rather than the server's recent copy. */
  refetch: () => void;
  /** Shows the previous (-1) or next (+1) sample, reading its page when it is not loaded. */
  moveSample: (samples: Samples | null, delta: number) => void;
}

export function useEditorFeed(url: string, dispatch: Dispatch<EditorAction>): EditorFeed {
  // Every request gets a number; an answer for an older number (or after leaving) is dropped.
  const newest = useRef(0);

  const load = useCallback(
    async (options: FeedOptions, loaded: (answer: FeedAnswer) => EditorAction, failed: (unreachable: boolean) => EditorAction) => {
      const mine = (newest.current += 1);
      // On a keyed site the key is asked for (once) and kept; a cancelled prompt just stops.
      const outcome = await withSiteKey((key) => fetchFeed(url, options, key), browserKeyDeps);
      if (mine !== newest.current) return;
      if (outcome.kind === 'done') {
        dispatch(loaded(outcome.value));
        return;
      }
      const alertText = outcome.kind === 'failed' ? feedFailure(outcome.message, outcome.status, outcome.error) : undefined;
      if (typeof alertText === 'string') window.alert(alertText);
      dispatch(failed(alertText === null));
    },
    [url, dispatch],
  );

  useEffect(() => {
    // The state changes only when the answer comes (never synchronously in the opening effect).
    void load(
      { limit: PAGE_SIZE },
      (answer) => ({ type: 'feedLoaded', answer }),
      (unreachable) => ({ type: 'feedFailed', unreachable }),
    );
    return () => {
      newest.current += 1;
    };
  }, [load]);

  return {
    refetch() {
      dispatch({ type: 'refetch' });
      void load(
        { limit: PAGE_SIZE, refresh: true },
        (answer) => ({ type: 'feedLoaded', answer }),
        (unreachable) => ({ type: 'feedFailed', unreachable }),
      );
    },
    moveSample(samples, delta) {
      if (!samples) return;
      const next = move(samples, delta);
      if (next.kind === 'none') return;
      if (next.kind === 'show') {
        dispatch({ type: 'showSamples', samples: next.samples });
        return;
      }
      dispatch({ type: 'pageRequested' });
      void load(
        { offset: next.offset, limit: PAGE_SIZE },
        (answer) => ({ type: 'pageLoaded', answer, index: next.index }),
        (unreachable) => ({ type: 'pageFailed', unreachable }),
      );
    },
  };
}

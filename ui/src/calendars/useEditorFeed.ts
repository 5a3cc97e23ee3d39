// The editor's feed requests: the opening read, a read of other feeds once they are committed,
// Refetch and further pages of sample events. Only the newest request's answer reaches the state;
// one that comes after a newer request was made, or after the editor closed, is dropped.
import { startTransition, useCallback, useEffect, useMemo, useRef, type Dispatch } from 'react';
import { ApiError, readFeed, UNREACHABLE, type FeedAnswer, type FeedOptions } from './api';
import type { EditorAction } from './editor';
import { withSiteKey } from '../lib/siteKey';
import { failureText } from './failure';
import { aboutTheVisitor } from './publish';
import { browserKeyDeps } from './publishKeyPrompt';
import { move, PAGE_SIZE, type Samples } from './samples';
import { rowOfField, type FeedTarget, type SourceRow } from './sources';

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

/**
 * The feed of `target` (sources.ts's readTarget, as JSON so that an equal target made anew reads
 * nothing again), read now and whenever it changes; null reads nothing. `rows` are the editor's
 * source rows, for marking the one a refusal names.
 */
export function useEditorFeed(targetJson: string | null, rows: readonly SourceRow[], dispatch: Dispatch<EditorAction>): EditorFeed {
  // Every request gets a number; an answer for an older number (or after leaving) is dropped.
  const newest = useRef(0);
  const target = useMemo(() => (targetJson === null ? null : (JSON.parse(targetJson) as (FeedTarget & { uids?: 'content' }) | null)), [targetJson]);
  // Read when a refusal comes, not a reason to read again.
  const rowsNow = useRef(rows);
  useEffect(() => {
    rowsNow.current = rows;
  }, [rows]);

  const load = useCallback(
    async (options: FeedOptions, loaded: (answer: FeedAnswer, target: FeedTarget) => EditorAction, failed: (unreachable: boolean) => EditorAction) => {
      if (!target) return;
      const mine = (newest.current += 1);
      // On a keyed site the key is asked for (once) and kept; a cancelled prompt just stops.
      // The UIDs the hosted feed gives events, so that the event list names them by those.
      const read = target.uids ? { ...options, uids: target.uids } : options;
      const outcome = await withSiteKey((key) => readFeed(target.wire, read, key), browserKeyDeps);
      if (mine !== newest.current) return;
      if (outcome.kind === 'done') {
        // Drawn in slices (a transition, as the first render in main.tsx): a page of events
        // changes most of the editor.
        startTransition(() => dispatch(loaded(outcome.value, target)));
        return;
      }
      let error = outcome.kind === 'failed' ? outcome.error : null;
      // A refused source is marked at its input, and named as the editor numbers its feeds.
      const at = error instanceof ApiError ? rowOfField(error.field, target, rowsNow.current) : null;
      if (at && error instanceof ApiError && outcome.kind === 'failed') {
        dispatch({ type: 'sources', action: { type: 'serverError', key: at.key, input: at.input, message: outcome.message } });
        error = new ApiError(error.status, error.message, at.field);
      }
      const alertText = outcome.kind === 'failed' ? feedFailure(outcome.message, outcome.status, error) : undefined;
      if (typeof alertText === 'string') window.alert(alertText);
      dispatch(failed(alertText === null));
    },
    [target, dispatch],
  );

  useEffect(() => {
    // The state changes only when the answer comes (never synchronously in the opening effect).
    void load(
      { limit: PAGE_SIZE },
      (answer, read) => ({ type: 'feedLoaded', answer, target: read }),
      (unreachable) => ({ type: 'feedFailed', unreachable }),
    );
    return () => {
      newest.current += 1;
    };
  }, [load]);

  return {
    refetch() {
      if (!target) return;
      dispatch({ type: 'refetch' });
      void load(
        { limit: PAGE_SIZE, refresh: true },
        (answer, read) => ({ type: 'feedLoaded', answer, target: read }),
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
        (answer, read) => ({ type: 'pageLoaded', answer, target: read, index: next.index }),
        (unreachable) => ({ type: 'pageFailed', unreachable }),
      );
    },
  };
}

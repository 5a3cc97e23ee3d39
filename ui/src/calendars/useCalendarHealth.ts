// The health checks of published calendars (issue 23): the editor's, made on opening and again on
// "Check again", and the list's, one calendar after the other once the list shows. A check never
// throws and never prompts: a failure becomes a quiet note (see checkFailureText).
import { startTransition, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { describeHealth, type HealthReport } from '../lib/feedHealth';
import { siteKey } from '../lib/siteKey';
import { ApiError, fetchCalendarStatus } from './api';
import type { SavedCalendar } from './calendar';
import { checkFailureText, healthAccess } from './health';

type Access = NonNullable<ReturnType<typeof healthAccess>>;

export type HealthResult =
  /** `googleAddress`: the newest address made for Google (GoogleAddress shows it), null when none. */
  { kind: 'ready'; report: HealthReport; checkedAt: Date; googleAddress: string | null } | { kind: 'failed'; message: string };

/** A check's outcome; only an abort (the page was left) rejects. */
export async function checkHealth(id: string, access: Access, signal?: AbortSignal): Promise<HealthResult> {
  try {
    const status = await fetchCalendarStatus(id, access.editToken, access.key, signal);
    const checkedAt = new Date();
    return { kind: 'ready', report: describeHealth(status, checkedAt), checkedAt, googleAddress: status.googleAddresses[0] ?? null };
  } catch (error) {
    if (signal?.aborted) throw error;
    return { kind: 'failed', message: checkFailureText(error instanceof ApiError ? error.status : -1) };
  }
}

export type HealthView =
  /** `last`: the previous answer, shown while the next is on its way so nothing moves. */
  { state: 'checking'; last: HealthResult | null } | { state: 'done'; result: HealthResult };

export interface CalendarHealth {
  /** Null when the calendar is not hosted or this browser cannot ask (no token, no key). */
  view: HealthView | null;
  /** Checks again (ignored while a check runs). */
  check: () => void;
}

/**
 * The editor's check of calendar `id` with its current hosting. Each Build & Host (a new
 * `hosting`) checks again: the publish fetched the feed, and the section must not say otherwise.
 */
export function useCalendarHealth(id: string, hosting: { hostedUrl?: string; editToken?: string }): CalendarHealth {
  const { hostedUrl, editToken } = hosting;
  const access = useMemo(() => healthAccess({ hostedUrl, editToken }, siteKey.read()), [hostedUrl, editToken]);
  const [round, setRound] = useState(0);
  const [seen, setSeen] = useState(hosting);
  if (seen !== hosting) {
    setSeen(hosting);
    setRound((r) => r + 1);
  }
  const [answered, setAnswered] = useState<{ key: string; result: HealthResult } | null>(null);
  // Which check the screen waits for: a new round, or new access (a first publish), asks again.
  const key = access ? `${id} ${access.editToken ?? ''} ${access.key ?? ''} ${round}` : null;

  useEffect(() => {
    if (!access || key === null) return;
    const abort = new AbortController();
    checkHealth(id, access, abort.signal).then(
      // Drawn in slices (a transition, as the first render in main.tsx).
      (result) => startTransition(() => setAnswered({ key, result })),
      () => undefined,
    );
    return () => abort.abort();
  }, [id, access, key]);

  const busy = key !== null && answered?.key !== key;
  const check = useCallback(() => {
    if (!busy) setRound((r) => r + 1);
  }, [busy]);

  if (key === null) return { view: null, check };
  if (answered?.key === key) return { view: { state: 'done', result: answered.result }, check };
  return { view: { state: 'checking', last: answered?.result ?? null }, check };
}

/**
 * The list's checks: each hosted calendar this browser can ask about, one at a time (a list of
 * many must not meet the server's per-visitor limits), each once while the list shows.
 * `undefined` for a calendar with nothing to ask, 'checking' until its answer is in.
 */
export function useListHealth(calendars: readonly SavedCalendar[]): (id: string) => HealthResult | 'checking' | undefined {
  const targets = useMemo(() => {
    const key = siteKey.read();
    return calendars.flatMap((calendar) => {
      const access = healthAccess(calendar, key);
      return access ? [{ id: calendar.id, access }] : [];
    });
  }, [calendars]);
  const [results, setResults] = useState<ReadonlyMap<string, HealthResult>>(() => new Map());
  // Checked already: deleting a calendar re-renders the list without asking about the others again.
  const asked = useRef(new Set<string>());

  useEffect(() => {
    const abort = new AbortController();
    const run = async () => {
      for (const { id, access } of targets) {
        if (asked.current.has(id)) continue;
        const result = await checkHealth(id, access, abort.signal);
        asked.current.add(id);
        setResults((before) => new Map(before).set(id, result));
      }
    };
    run().catch(() => undefined);
    return () => abort.abort();
  }, [targets]);

  return useCallback(
    (id: string) => {
      if (!targets.some((target) => target.id === id)) return undefined;
      return results.get(id) ?? 'checking';
    },
    [targets, results],
  );
}

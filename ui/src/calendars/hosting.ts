// Build & Host and Unpublish as the editor runs them: the call (with this site's publish key when
// it wants one), the reducer told when it starts and ends, failures shown, and the edit token kept
// in storage at once. The browser parts come in as deps, so tests run the flows without one.
import type { Dispatch } from 'react';
import { ApiError, publishCalendar, unpublishCalendar, type PublishAnswer, type PublishRequest } from './api';
import { feedWire, hostingAfterPublish, publishRequest, savedCalendar, type EditorAction, type EditorState } from './editor';
import { failureText } from './failure';
import { publishFingerprint } from './live';
import { withSiteKey, type KeyDeps } from '../lib/siteKey';
import { browserKeyDeps } from './publishKeyPrompt';
import { publishTarget, rowOfField, sourcesReducer, storedFeed } from './sources';
import { calendarStore, type CalendarStore } from './storage';

export const UNPUBLISH_QUESTION = 'Unpublish this calendar? Its hosted address stops working for subscribers.';

export interface HostingDeps {
  store: CalendarStore;
  keys: KeyDeps;
  alert(message: string): void;
  confirm(message: string): boolean;
  publish(request: PublishRequest, publishKey: string | null): Promise<PublishAnswer>;
  unpublish(id: string, editToken: string, publishKey: string | null): Promise<void>;
  now(): Date;
}

export const browserHostingDeps: HostingDeps = {
  store: calendarStore,
  keys: browserKeyDeps,
  alert: (message) => window.alert(message),
  confirm: (message) => window.confirm(message),
  publish: publishCalendar,
  unpublish: unpublishCalendar,
  now: () => new Date(),
};

/** The calendar beside what the editor holds (its feeds are the editor's sources). */
interface Calendar {
  id: string;
  name: string;
}

/**
 * Saves, then publishes the calendar as edited: what subscribers get is always what the list
 * holds, so reopening the editor shows the live mapping and a later Build & Host cannot revert
 * it. The hosted address, edit token and what was published are stored at once. True once hosted.
 */
export async function runPublish(state: EditorState, calendar: Calendar, dispatch: Dispatch<EditorAction>, deps: HostingDeps): Promise<boolean> {
  const saved = deps.store.upsert(savedCalendar(state, calendar, deps.now()));
  if (!saved.ok) {
    deps.alert(saved.error);
    return false;
  }
  // Saved: nothing of it is unsaved any more.
  deps.store.clearDraft(calendar.id);
  dispatch({ type: 'saved' });
  dispatch({ type: 'publishStarted' });
  const fingerprint = publishFingerprint({ name: calendar.name, ...feedWire(state) }, state.mapping, state.options);
  const outcome = await withSiteKey((key) => deps.publish(publishRequest(state, calendar), key), deps.keys);
  dispatch({ type: 'publishEnded', answer: outcome.kind === 'done' ? outcome.value : null, publishedConfig: fingerprint });
  if (outcome.kind === 'cancelled') return false;
  if (outcome.kind === 'failed') {
    // A refused source is marked at its input, and named as the editor numbers its feeds.
    const error = outcome.error instanceof ApiError ? outcome.error : null;
    const at = rowOfField(error?.field ?? null, publishTarget(state.sources.rows), state.sources.rows);
    if (at) dispatch({ type: 'sources', action: { type: 'serverError', key: at.key, input: at.input, message: outcome.message } });
    const named = error && at ? new ApiError(error.status, error.message, at.field) : outcome.error;
    deps.alert(`Publish failed: ${failureText(outcome.message, named)}`);
    return false;
  }
  const next = hostingAfterPublish(state.hosting, outcome.value, fingerprint);
  // A login given is stored on the server now: the calendar keeps that it is ("set"), never it.
  const logins = state.sources.rows.some((r) => r.login !== undefined && r.login.state !== 'none');
  const feed = logins ? storedFeed(sourcesReducer(state.sources, { type: 'loginsSaved' }).rows) : {};
  // The edit token is the only way to republish or take the feed down: keep it at once.
  const kept = deps.store.update(calendar.id, (c) => ({ ...c, ...feed, ...next }));
  if (!kept.ok) deps.alert(kept.error);
  else if (logins) dispatch({ type: 'saved' });
  return true;
}

/** Takes the hosted calendar down after asking; the stored calendar forgets its hosting. */
export async function runUnpublish(state: EditorState, id: string, dispatch: Dispatch<EditorAction>, deps: HostingDeps) {
  const token = state.hosting.editToken;
  if (!token || !deps.confirm(UNPUBLISH_QUESTION)) return;
  dispatch({ type: 'unpublishStarted' });
  const outcome = await withSiteKey((key) => deps.unpublish(id, token, key), deps.keys);
  dispatch({ type: 'unpublishEnded', done: outcome.kind === 'done' });
  if (outcome.kind === 'cancelled') return;
  if (outcome.kind === 'failed') {
    deps.alert(`Unpublish failed: ${failureText(outcome.message, outcome.error)}`);
    return;
  }
  const kept = deps.store.update(id, (c) => {
    const rest = { ...c };
    delete rest.editToken;
    delete rest.hostedUrl;
    delete rest.publishedConfig;
    return rest;
  });
  if (!kept.ok) deps.alert(kept.error);
}

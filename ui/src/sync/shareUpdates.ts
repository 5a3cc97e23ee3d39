// Shares that follow the deck. The sharer's side: when a shared deck is saved again (the
// local-change signal, or sync writing it from another device), its new version is sealed and
// replaces the shared copy in the background (PUT with the version it starts from; on a conflict
// with another tab, the version is read again and it is tried again; a link the server no longer
// has is reported, so a new one can be made; a server that says to wait is left alone that long).
// The other side: a deck added from a link remembers where it came from (the share, its key, the
// version taken, and what it was given then, in sync's own state), asks cheaply whether the link
// holds a newer version (If-None-Match: a 304 when not), and takes it through the flashcards'
// adapter, which keeps card ids, progress and the learner's own edits.
import { fingerprint } from '../lib/fingerprint';
import { onLocalChange, onSynced } from '../lib/localChanges';
import { syncAdapters, type ShareUpdatePlan, type SyncDeck } from '../lib/syncAdapters';
import { readBlob, SyncApiError, writeBlob } from './api';
import { seal } from './crypto';
import { backOffMs } from './engine';
import type { ShareLink } from './links';
import { fetchShareMedia, openSharedBody, sendShareMedia, SHARE_TYPE, SHARE_VERSION, type SharedDeck } from './shares';
import { syncStore } from './state';

// --- States that screens show -------------------------------------------------------------------

/** The sharer's link: does it show the deck as saved now? */
export type FollowState =
  | { phase: 'unknown' }
  | { phase: 'updating' }
  | { phase: 'current'; updatedAt: number | null }
  | { phase: 'outdated'; error: string; retryAt: number | null }
  | { phase: 'gone' };

/** A deck added from a link: is a newer version there? */
export type CopyState =
  | { phase: 'unknown' }
  | { phase: 'current' }
  | { phase: 'available'; plan: ShareUpdatePlan; incoming: SyncDeck; version: number }
  | { phase: 'gone' }
  | { phase: 'failed'; error: string };

const follows = new Map<string, FollowState>();
const copies = new Map<string, CopyState>();
const listeners = new Set<() => void>();
let revision = 0;

function emit() {
  revision += 1;
  for (const listener of listeners) listener();
}

export function subscribeShareUpdates(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Changes whenever a state does (for useSyncExternalStore). */
export const shareUpdatesRevision = () => revision;

export const followState = (deckId: string): FollowState => follows.get(deckId) ?? { phase: 'unknown' };
export const copyState = (deckId: string): CopyState => copies.get(deckId) ?? { phase: 'unknown' };

const setFollow = (deckId: string, state: FollowState) => {
  follows.set(deckId, state);
  emit();
};
const setCopyState = (deckId: string, state: CopyState) => {
  copies.set(deckId, state);
  emit();
};

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Until when (epoch ms) the server asked share requests to wait; 0 when it did not. */
let waitUntil = 0;

function noteWait(error: unknown): number | null {
  const wait = backOffMs(error);
  if (wait === null) return null;
  waitUntil = Date.now() + wait;
  return waitUntil;
}

const waiting = () => Date.now() < waitUntil;

// --- The sharer's side --------------------------------------------------------------------------

/** What a shared deck's copy is compared by: the deck without its save time (a save of the same deck changes nothing). */
const deckPrint = (deck: SyncDeck) => fingerprint(JSON.stringify({ ...deck, createdAt: '' }));

/** The sealed body of a shared deck, bound to its place: the link's id and the version it will be (the server's next). */
const sealShare = (deck: SyncDeck, key: string, id: string, version: number) =>
  seal({ type: SHARE_TYPE, version: SHARE_VERSION, deck }, key, { kind: 'shares', id, version });

/** After "Create share link": the link holds the deck as saved now. */
export async function noteShareMade(deckId: string): Promise<void> {
  const share = syncStore.shares()[deckId];
  const deck = (await syncAdapters()).decks.sharedDeck(deckId);
  if (!share?.id || !deck) return;
  syncStore.setShare(deckId, { ...share, sent: deckPrint(deck) });
  setFollow(deckId, { phase: 'current', updatedAt: null });
}

/** Forgets what is known of a link taken down here. */
export function forgetFollow(deckId: string) {
  follows.delete(deckId);
  emit();
}

/** The version the server holds of the link; null when it no longer has it. */
async function serverVersion(id: string): Promise<number | null> {
  const pulled = await readBlob('shares', id);
  return pulled.kind === 'blob' ? pulled.version : null;
}

const ROUNDS = 4;
const updating = new Map<string, Promise<void>>();

/**
 * Replaces the shared copy with the deck as saved now, when it differs from what the link holds
 * (`force`: the learner asked, so it is sent even when this browser believes it current).
 */
export function updateSharedCopy(deckId: string, force = false): Promise<void> {
  const under = updating.get(deckId);
  if (under) return under;
  const run = updateOnce(deckId, force).finally(() => updating.delete(deckId));
  updating.set(deckId, run);
  return run;
}

async function updateOnce(deckId: string, force: boolean): Promise<void> {
  const share = syncStore.shares()[deckId];
  if (!share?.id) return;
  const deck = (await syncAdapters()).decks.sharedDeck(deckId);
  // A deck deleted here keeps its link as it was; revoking it is the sharer's choice.
  if (!deck) return;
  const sent = deckPrint(deck);
  if (!force && share.sent === sent) {
    // Files the link does not hold yet (a send refused or cut off before) go now.
    try {
      if (!waiting()) await sendShareMedia({ id: share.id, key: share.key, token: share.token }, deck);
    } catch (error) {
      const retryAt = noteWait(error);
      return setFollow(deckId, { phase: 'outdated', error: messageOf(error), retryAt });
    }
    if (followState(deckId).phase === 'unknown') setFollow(deckId, { phase: 'current', updatedAt: null });
    return;
  }
  if (waiting()) {
    setFollow(deckId, { phase: 'outdated', error: 'The server asked to wait.', retryAt: waitUntil });
    return;
  }
  setFollow(deckId, { phase: 'updating' });
  try {
    // The files first, so whoever opens the new version finds them.
    await sendShareMedia({ id: share.id, key: share.key, token: share.token }, deck);
    let base = share.version ?? (await serverVersion(share.id));
    for (let round = 0; round < ROUNDS && base !== null; round += 1) {
      const written = await writeBlob('shares', share.id, share.token, base, await sealShare(deck, share.key, share.id, base + 1));
      if (written.kind === 'written') {
        syncStore.setShare(deckId, { ...share, version: written.version, sent });
        setFollow(deckId, { phase: 'current', updatedAt: Date.now() });
        return;
      }
      // Another tab of this browser wrote first: start from the version the server has now.
      base = written.kind === 'conflict' ? (written.version > base ? written.version : await serverVersion(share.id)) : null;
    }
    if (base === null) {
      setFollow(deckId, { phase: 'gone' });
      return;
    }
    throw new Error('The shared copy kept changing while it was being updated.');
  } catch (error) {
    const retryAt = noteWait(error);
    setFollow(deckId, { phase: 'outdated', error: messageOf(error), retryAt });
    if (retryAt !== null) setTimeout(() => void updateSharedCopy(deckId), retryAt - Date.now());
  }
}

/** Every link this browser made that still shows an older version is updated. */
async function followAll(): Promise<void> {
  for (const [deckId, share] of Object.entries(syncStore.shares())) {
    if (share.id && followState(deckId).phase !== 'gone') await updateSharedCopy(deckId);
  }
}

/** How long after the last save the shared copies are updated (saves in a row send once). */
export const FOLLOW_DELAY_MS = 1500;
let following = false;

/** Starts following saves once per page (nothing is sent while no link was made here). */
export function startShareFollowing() {
  if (following) return;
  following = true;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const soon = () => {
    if (Object.keys(syncStore.shares()).length === 0) return;
    clearTimeout(timer);
    timer = setTimeout(() => void followAll(), FOLLOW_DELAY_MS);
  };
  onLocalChange(soon);
  onSynced(soon);
  window.addEventListener('online', soon);
  soon();
}

// --- Those who added it -------------------------------------------------------------------------

/** Whether the deck was added from a share link (it then follows it). */
export const isSharedCopy = (deckId: string): boolean => deckId in syncStore.copies();

/** "Add to my decks": the copy, and where it came from, so it can follow the link. Its id. */
export async function addFollowingCopy(link: ShareLink, shared: SharedDeck, now = new Date()): Promise<string> {
  const { decks } = await syncAdapters();
  // The deck's pictures and sounds come first, so its cards show them at once.
  await fetchShareMedia(link, shared.deck);
  const id = decks.addCopy(shared.deck, now);
  try {
    syncStore.setCopy(id, { shareId: link.id, key: link.key, version: shared.version, base: decks.shareBase(shared.deck) });
  } catch {
    // The copy is saved; only following the link is lost (storage is full).
  }
  return id;
}

const checking = new Map<string, Promise<void>>();

/** Asks whether the link holds a newer version than the copy took (a cheap 304 when not). */
export function checkCopy(deckId: string): Promise<void> {
  const under = checking.get(deckId);
  if (under) return under;
  const run = checkOnce(deckId).finally(() => checking.delete(deckId));
  checking.set(deckId, run);
  return run;
}

async function checkOnce(deckId: string): Promise<void> {
  const record = syncStore.copies()[deckId];
  if (!record || waiting()) return;
  const { decks } = await syncAdapters();
  if (!decks.readDeck(deckId)) {
    // The copy was deleted: nothing follows the link any more.
    syncStore.setCopy(deckId, null);
    copies.delete(deckId);
    emit();
    return;
  }
  const known = copyState(deckId);
  try {
    const pulled = await readBlob('shares', record.shareId, known.phase === 'available' ? known.version : record.version);
    if (pulled.kind === 'gone') return setCopyState(deckId, { phase: 'gone' });
    if (pulled.kind === 'unchanged') {
      if (known.phase !== 'available') setCopyState(deckId, { phase: 'current' });
      return;
    }
    const incoming = await openSharedBody({ id: record.shareId, key: record.key }, pulled.version, pulled.body);
    const plan = incoming && decks.planUpdate(deckId, incoming, record.base);
    if (!incoming || !plan) return setCopyState(deckId, { phase: 'failed', error: 'The shared deck’s new version cannot be read by this version of the app.' });
    if (plan.worthShowing) return setCopyState(deckId, { phase: 'available', plan, incoming, version: pulled.version });
    // Saved again without a change this copy would see: remembered, nothing to ask.
    syncStore.setCopy(deckId, { ...record, version: pulled.version, base: plan.base });
    setCopyState(deckId, { phase: 'current' });
  } catch (error) {
    noteWait(error);
    // Offline or a server that asked to wait: the copy stays as it is, the next check asks again.
    if (!(error instanceof SyncApiError) && error instanceof TypeError) return;
    setCopyState(deckId, { phase: 'failed', error: messageOf(error) });
  }
}

/** Takes the newer version into the copy; what it did (null when there was none to take). */
export async function takeCopyUpdate(deckId: string, now = new Date()): Promise<ShareUpdatePlan | null> {
  const state = copyState(deckId);
  const record = syncStore.copies()[deckId];
  if (state.phase !== 'available' || !record) return null;
  const { decks } = await syncAdapters();
  await fetchShareMedia({ id: record.shareId, key: record.key }, state.incoming);
  const done = decks.takeUpdate(deckId, state.incoming, record.base, now);
  if (!done) throw new Error('This deck can no longer be updated: it was changed in a way this page cannot read.');
  syncStore.setCopy(deckId, { ...record, version: state.version, base: done.base });
  setCopyState(deckId, { phase: 'current' });
  return done;
}

/** How often a visible screen showing a copy asks about its link. */
export const COPY_POLL_MS = 60_000;

// Shared decks: a read-only copy of one deck sealed with its own key, the links this browser made
// (kept so it can show and revoke them; a link being made is kept with its key and write token
// before the request goes, so trying again after a lost answer gets the same link), and reading
// one from its link; the files its cards refer to travel beside it (media.ts), sent with the link
// and fetched when the deck is added. A shared deck is sealed for its place (binding.ts: kind, the id chosen here,
// version) and a reader refuses one older than it has seen or sealed for another place. The deck is read, checked and added to the learner's decks through the
// flashcards' adapter (lib/syncAdapters.ts).
import { isRecord } from '../lib/json';
import { syncAdapters, type DeckPreview, type SyncDeck } from '../lib/syncAdapters';
import { createBlob, readBlob, removeBlob } from './api';
import { NOTHING_SEEN, openPlaced } from './binding';
import { newBlobId, newKey, newToken, seal } from './crypto';
import type { ShareLink } from './links';
import { fetchAllMissing, sendMedia } from './media';
import { syncStore } from './state';

export const SHARE_TYPE = 'hearth-shared-deck';
export const SHARE_VERSION = 1;

export interface MadeShare extends ShareLink {
  token: string;
}

/** The link this browser made for the deck, or null (none, or one still being made). */
export function shareOf(deckId: string): MadeShare | null {
  const share = syncStore.shares()[deckId];
  return share?.id ? { id: share.id, key: share.key, token: share.token } : null;
}

/**
 * Seals the deck as saved now and uploads it; the link shows this version (after a lost answer,
 * the version the first try sent). Null when the site wants its key and the visitor cancelled.
 */
export async function shareDeck(deckId: string): Promise<MadeShare | null> {
  const deck = (await syncAdapters()).decks.sharedDeck(deckId);
  if (!deck) throw new Error('Save the deck first: only a saved deck can be shared.');
  const kept = syncStore.shares()[deckId];
  const pending =
    kept && !kept.id
      ? { key: kept.key, token: kept.token, chosenId: kept.chosenId ?? newBlobId() }
      : { key: await newKey(), token: newToken(), chosenId: newBlobId() };
  syncStore.setShare(deckId, pending);
  const place = { kind: 'shares', id: pending.chosenId, version: 1 } as const;
  const created = await createBlob(
    'shares',
    await seal({ type: SHARE_TYPE, version: SHARE_VERSION, deck }, pending.key, place),
    pending.token,
    pending.chosenId,
  );
  if (!created) return null;
  if (!created.replayed && created.id !== pending.chosenId)
    throw new Error('This server does not keep the deck under the id this page chose: reload the page.');
  const share: MadeShare = { id: created.id, key: pending.key, token: created.token };
  syncStore.setShare(deckId, share);
  try {
    await sendShareMedia(share, deck);
  } catch {
    // The link is made: following its saves sends the files again and says what the server refused.
  }
  return share;
}

/**
 * Sends the files the shared deck's cards refer to that the link does not hold yet (sealed with
 * its key, beside it), and removes from the server those no card refers to any more.
 */
export async function sendShareMedia(share: MadeShare, deck: SyncDeck): Promise<void> {
  const { media } = await syncAdapters();
  await sendMedia({ kind: 'shares', ...share }, media.referenced(deck), media, syncStore, true);
}

/** Brings the files a shared deck's cards refer to that this device lacks (those that fail show a placeholder, asked for again later). */
export async function fetchShareMedia(link: ShareLink, deck: SyncDeck): Promise<void> {
  const { media } = await syncAdapters();
  try {
    await fetchAllMissing({ kind: 'shares', id: link.id, key: link.key }, media.referenced(deck), media);
  } catch {
    // The media store cannot be read (private mode): the cards show their placeholders.
  }
}

/** Takes the link down (one the server no longer has counts as taken down) and forgets it. */
export async function revokeShare(deckId: string): Promise<void> {
  const share = shareOf(deckId);
  if (share) await removeBlob('shares', share.id, share.token);
  syncStore.setShare(deckId, null);
}

export interface SharedDeck {
  deck: SyncDeck;
  /** What the page shows of it. */
  preview: DeckPreview;
  /** The version the server holds (a copy remembers it, to ask later whether there is a newer one). */
  version: number;
}

/**
 * The deck in a shared deck's body, read from the server as `version` of the link: opened for that
 * place (binding.ts), remembered as seen, and checked by the flashcards' adapter; null when it
 * holds no deck this app reads. Throws in words when the body is refused.
 */
export async function openSharedBody(link: ShareLink, version: number, body: Uint8Array<ArrayBuffer>): Promise<SyncDeck | null> {
  const place = { kind: 'shares', id: link.id, version } as const;
  const opened = await openPlaced(body, link.key, place, syncStore.shareSeen(link.id) ?? NOTHING_SEEN);
  try {
    syncStore.setShareSeen(link.id, opened.seen);
  } catch {
    // A full storage: the deck still opens; the next opening is checked against less.
  }
  const value = opened.value;
  return isRecord(value) && value.type === SHARE_TYPE ? (await syncAdapters()).decks.parseDeck(value.deck, link.id) : null;
}

/** The shared deck behind a link; null when the server no longer has it (revoked, or expired unread). */
export async function openShare(link: ShareLink): Promise<SharedDeck | null> {
  const pulled = await readBlob('shares', link.id);
  if (pulled.kind !== 'blob') return null;
  const deck = await openSharedBody(link, pulled.version, pulled.body);
  if (!deck) throw new Error('This link does not hold a deck this app can read.');
  return { deck, preview: (await syncAdapters()).decks.preview(deck), version: pulled.version };
}

/** "Add to my decks": the deck's files fetched, then a copy with a new id, saved now, first in the list; its id. */
export async function addToMyDecks(link: ShareLink, shared: SharedDeck, now = new Date()): Promise<string> {
  await fetchShareMedia(link, shared.deck);
  return (await syncAdapters()).decks.addCopy(shared.deck, now);
}

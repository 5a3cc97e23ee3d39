// Shared decks: a read-only copy of one deck sealed with its own key, the links this browser made
// (kept so it can show and revoke them), and reading one from its link. The deck is read, checked
// and added to the learner's decks through the flashcards' adapter (lib/syncAdapters.ts).
import { isRecord } from '../lib/json';
import { syncAdapters, type DeckPreview, type SyncDeck } from '../lib/syncAdapters';
import { createBlob, readBlob, removeBlob } from './api';
import { newKey, open, seal } from './crypto';
import type { ShareLink } from './links';

export const SHARES_KEY = 'sync:shares';
const SHARE_TYPE = 'hearth-shared-deck';

export interface MadeShare extends ShareLink {
  token: string;
}

function readShares(): Record<string, MadeShare> {
  try {
    const value = JSON.parse(localStorage.getItem(SHARES_KEY) ?? '{}') as unknown;
    return isRecord(value) ? (value as Record<string, MadeShare>) : {};
  } catch {
    return {};
  }
}

export const shareOf = (deckId: string): MadeShare | null => readShares()[deckId] ?? null;

/** Seals the deck as saved now and uploads it; the link shows this version. */
export async function shareDeck(deckId: string): Promise<MadeShare> {
  const deck = (await syncAdapters()).decks.readDeck(deckId);
  if (!deck) throw new Error('Save the deck first: only a saved deck can be shared.');
  const key = await newKey();
  const created = await createBlob('shares', await seal({ type: SHARE_TYPE, version: 1, deck }, key));
  const share: MadeShare = { id: created.id, key, token: created.token };
  localStorage.setItem(SHARES_KEY, JSON.stringify({ ...readShares(), [deckId]: share }));
  return share;
}

export async function revokeShare(deckId: string): Promise<void> {
  const share = shareOf(deckId);
  if (!share) return;
  await removeBlob('shares', share.id, share.token);
  const rest = Object.fromEntries(Object.entries(readShares()).filter(([id]) => id !== deckId));
  localStorage.setItem(SHARES_KEY, JSON.stringify(rest));
}

export interface SharedDeck {
  deck: SyncDeck;
  /** What the page shows of it. */
  preview: DeckPreview;
}

/** The shared deck behind a link; null when it was revoked. */
export async function openShare(link: ShareLink): Promise<SharedDeck | null> {
  let pulled;
  try {
    pulled = await readBlob('shares', link.id);
  } catch (error) {
    if (error instanceof Error && 'status' in error && error.status === 404) return null;
    throw error;
  }
  if (pulled.kind !== 'blob') return null;
  const value = await open(pulled.body, link.key);
  const { decks } = await syncAdapters();
  const deck = isRecord(value) && value.type === SHARE_TYPE ? decks.parseDeck(value.deck, link.id) : null;
  if (!deck) throw new Error('This link does not hold a deck this app can read.');
  return { deck, preview: decks.preview(deck) };
}

/** "Add to my decks": a copy with a new id, saved now, first in the list; its id. */
export async function addToMyDecks(shared: SharedDeck, now = new Date()): Promise<string> {
  return (await syncAdapters()).decks.addCopy(shared.deck, now);
}

// Shared decks: a read-only copy of one deck sealed with its own key, the links this browser made
// (kept so it can show and revoke them), and reading one from its link.
import { isRecord } from '../lib/json';
import { newId } from '../lib/uuid';
import { announceLocalChange } from '../lib/localChanges';
import { createBlob, readBlob, removeBlob } from './api';
import { newKey, open, seal } from './crypto';
import type { ShareLink } from './links';
import { deckKey, INDEX_KEY } from './local';

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

function readDeck(deckId: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(localStorage.getItem(deckKey(deckId)) ?? 'null') as unknown;
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}

/** Seals the deck as saved now and uploads it; the link shows this version. */
export async function shareDeck(deckId: string): Promise<MadeShare> {
  const deck = readDeck(deckId);
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

export interface SharedCard {
  front: string;
  back: string;
}

export interface SharedDeck {
  raw: Record<string, unknown>;
  name: string;
  sourceLang: string;
  targetLang: string;
  cards: SharedCard[];
}

const str = (value: unknown) => (typeof value === 'string' ? value : '');

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
  if (!isRecord(value) || value.type !== SHARE_TYPE || !isRecord(value.deck)) throw new Error('This link does not hold a deck.');
  const raw = value.deck;
  const cards = Array.isArray(raw.cards)
    ? (raw.cards as unknown[]).filter(isRecord).map((card) => ({ front: str(card.front), back: str(card.back) }))
    : [];
  return { raw, name: str(raw.name), sourceLang: str(raw.sourceLang), targetLang: str(raw.targetLang), cards };
}

/** "Add to my decks": a copy with a new id, saved now, first in the list. */
export function addToMyDecks(deck: SharedDeck, now = new Date()): string {
  const id = newId();
  const copy = { ...deck.raw, id, createdAt: now.toISOString(), type: 'deck', version: 1 };
  localStorage.setItem(deckKey(id), JSON.stringify(copy));
  let index: unknown;
  try {
    index = JSON.parse(localStorage.getItem(INDEX_KEY) ?? '[]');
  } catch {
    index = [];
  }
  const ids = Array.isArray(index) ? (index as unknown[]).filter((other): other is string => typeof other === 'string') : [];
  localStorage.setItem(INDEX_KEY, JSON.stringify([id, ...ids]));
  announceLocalChange();
  return id;
}

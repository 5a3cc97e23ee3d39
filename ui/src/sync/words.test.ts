import { describe, expect, it } from 'vitest';
import type { SyncStatus } from './engine';
import { badgeText, shareExpiryText, shareGoneText, updateSummary, vaultExpiryText, vaultGoneText } from './words';

const status = (change: Partial<SyncStatus>): SyncStatus => ({ phase: 'idle', error: null, lastSyncedAt: null, retryAt: null, ...change });

describe("the server's expiry in words", () => {
  it('says the days the server gives, and nothing when it gives none (an older server)', () => {
    expect(vaultExpiryText(180)).toBe('A vault nobody opens for 180 days is removed from this server.');
    expect(vaultExpiryText(undefined)).toBeNull();
    expect(shareExpiryText(90)).toBe('A shared deck nobody opens for 90 days is removed from this server.');
    expect(shareExpiryText(1)).toBe('A shared deck nobody opens for 1 day is removed from this server.');
    expect(shareExpiryText(undefined)).toBeNull();
  });

  it('says why a vault or shared deck is gone, with the days when known', () => {
    expect(vaultGoneText(180)).toBe(
      "The server no longer has this browser's sync vault: it was removed, or its link was replaced on another device, or nobody opened it for 180 days. Your decks are still here, in this browser.",
    );
    expect(vaultGoneText(undefined)).toMatch(/removed, or its link was replaced on another device, or it expired\. Your decks are still here/);
    expect(shareGoneText(90)).toBe('This shared deck’s link was revoked, or it expired after 90 days without being opened.');
    expect(shareGoneText(undefined)).toBe('This shared deck’s link was revoked or has expired.');
  });
});

describe("the deck list's sync link", () => {
  it('offers sync when this browser does not sync, and says how syncing goes when it does', () => {
    expect(badgeText(false, status({ phase: 'error' }))).toBe('Sync');
    expect(badgeText(true, status({ phase: 'syncing' }))).toBe('Syncing…');
    expect(badgeText(true, status({ phase: 'offline' }))).toBe('Offline: will sync');
    expect(badgeText(true, status({ phase: 'error' }))).toBe('Sync failed');
    expect(badgeText(true, status({ phase: 'error', retryAt: 1 }))).toBe('Sync paused');
    expect(badgeText(true, status({ phase: 'idle', lastSyncedAt: null }))).toBe('Synced never');
  });

  it('says when the vault is gone, pointing to starting again', () => {
    expect(badgeText(true, status({ phase: 'gone' }))).toBe('Sync stopped');
  });
});

describe('a shared deck’s update in words', () => {
  const card = { front: 'eat', back: 'manger' };
  it('counts what the update did and says progress is kept', () => {
    expect(updateSummary({ name: 'Verbs', added: [card, card], changed: [{ before: card, after: card }], removed: [card], kept: [] })).toBe(
      'Updated “Verbs”: 2 cards added, 1 card changed, 1 card removed. Your progress is kept.',
    );
    expect(updateSummary({ name: ' ', added: [], changed: [], removed: [], kept: [card] })).toBe(
      'Updated “Untitled deck”: 1 card kept as you edited them. Your progress is kept.',
    );
  });
});

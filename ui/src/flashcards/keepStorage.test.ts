import { describe, expect, it, vi } from 'vitest';
import { askToKeep, createKeeper, showKeepNotice, storageUsed, storageUsedText, type StorageManagerLike } from './keepStorage';

const manager = (persisted: boolean, granted: boolean): StorageManagerLike & { persist: ReturnType<typeof vi.fn> } => ({
  persisted: vi.fn(() => Promise.resolve(persisted)),
  persist: vi.fn(() => Promise.resolve(granted)),
});

describe('askToKeep', () => {
  it('does not ask again when the storage is already kept', async () => {
    const kept = manager(true, false);
    await expect(askToKeep(kept)).resolves.toBe('kept');
    expect(kept.persist).not.toHaveBeenCalled();
  });

  it('asks, and reports what the browser granted', async () => {
    const granted = manager(false, true);
    await expect(askToKeep(granted)).resolves.toBe('kept');
    expect(granted.persist).toHaveBeenCalledOnce();
    await expect(askToKeep(manager(false, false))).resolves.toBe('not-kept');
  });

  it('says unsupported without a StorageManager or persist(), and not kept when asking fails', async () => {
    await expect(askToKeep(undefined)).resolves.toBe('unsupported');
    await expect(askToKeep({})).resolves.toBe('unsupported');
    await expect(askToKeep({ persist: () => Promise.reject(new Error('no')) })).resolves.toBe('not-kept');
  });
});

describe('createKeeper', () => {
  it('asks the browser once per page load', async () => {
    const refused = manager(false, false);
    const keeper = createKeeper(() => refused);
    await expect(keeper.ask()).resolves.toBe('not-kept');
    await expect(keeper.ask()).resolves.toBe('not-kept');
    expect(refused.persist).toHaveBeenCalledOnce();
  });
});

describe('showKeepNotice', () => {
  it('shows only with a deck to lose and storage that is not kept', () => {
    expect(showKeepNotice(1, 'not-kept')).toBe(true);
    expect(showKeepNotice(3, 'unsupported')).toBe(true);
    expect(showKeepNotice(3, 'kept')).toBe(false);
    expect(showKeepNotice(0, 'not-kept')).toBe(false);
    // Not answered yet: nothing, so nothing appears and disappears.
    expect(showKeepNotice(3, null)).toBe(false);
  });
});

describe('storageUsed', () => {
  it('reads the estimate', async () => {
    await expect(storageUsed({ estimate: () => Promise.resolve({ usage: 2048, quota: 1_000_000 }) })).resolves.toEqual({ usage: 2048, quota: 1_000_000 });
    await expect(storageUsed({ estimate: () => Promise.resolve({ usage: 10 }) })).resolves.toEqual({ usage: 10, quota: null });
  });

  it('is null when the browser cannot say', async () => {
    await expect(storageUsed(undefined)).resolves.toBeNull();
    await expect(storageUsed({})).resolves.toBeNull();
    await expect(storageUsed({ estimate: () => Promise.resolve({}) })).resolves.toBeNull();
    await expect(storageUsed({ estimate: () => Promise.reject(new Error('no')) })).resolves.toBeNull();
  });
});

describe('storageUsedText', () => {
  it('says what the site stores, and what the browser allows when it says', () => {
    expect(storageUsedText({ usage: 1536, quota: 10 * 1024 ** 3 })).toBe(
      'This site stores 1.5 KB on this device (the browser allows up to 10.0 GB): your decks, their review logs and the app itself.',
    );
    expect(storageUsedText({ usage: 0, quota: null })).toBe('This site stores 0 B on this device: your decks, their review logs and the app itself.');
  });

  it('names the cards’ pictures and sounds with their size', () => {
    expect(storageUsedText({ usage: 5 * 1024 ** 2, quota: null }, 3 * 1024 ** 2)).toBe(
      'This site stores 5.0 MB on this device: your decks, their review logs, 3.0 MB of pictures and sounds and the app itself.',
    );
    expect(storageUsedText(null, 2048)).toBe('This browser does not say how much storage this site uses; the cards’ pictures and sounds take 2.0 KB.');
  });

  it('says when it is still asking and when the browser cannot say', () => {
    expect(storageUsedText(undefined)).toBe('Measuring the storage this site uses on this device…');
    expect(storageUsedText(null)).toBe('This browser does not say how much storage this site uses.');
  });
});

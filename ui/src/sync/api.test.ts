import { describe, expect, it } from 'vitest';
import { parseSyncInfo, retryAfterSeconds } from './api';

describe('parseSyncInfo (the hearth-sync block the server writes into the page)', () => {
  it('reads the limits when sync is on', () => {
    expect(parseSyncInfo('{"keyRequired":true,"maxBytes":8388608}')).toEqual({ keyRequired: true, maxBytes: 8388608 });
  });

  it('reads the days after which the server removes what nobody read, when it says them', () => {
    expect(parseSyncInfo('{"keyRequired":false,"maxBytes":8,"vaultExpiryDays":180,"shareExpiryDays":90}')).toEqual({
      keyRequired: false,
      maxBytes: 8,
      vaultExpiryDays: 180,
      shareExpiryDays: 90,
    });
    // Days that are no whole number of days are left out, as an older server's absent ones.
    expect(parseSyncInfo('{"keyRequired":false,"maxBytes":8,"vaultExpiryDays":0,"shareExpiryDays":"90"}')).toEqual({ keyRequired: false, maxBytes: 8 });
  });

  it('reads null as sync turned off', () => {
    expect(parseSyncInfo('null')).toBeNull();
  });

  it('knows nothing from a missing, broken or misshapen block, so the app asks the server', () => {
    expect(parseSyncInfo(undefined)).toBeUndefined();
    expect(parseSyncInfo('')).toBeUndefined();
    expect(parseSyncInfo('{"keyRequired":')).toBeUndefined();
    expect(parseSyncInfo('42')).toBeUndefined();
    expect(parseSyncInfo('{"maxBytes":"8"}')).toBeUndefined();
    expect(parseSyncInfo('{"maxBytes":8}')).toBeUndefined();
  });
});

describe('retryAfterSeconds', () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);
  it('reads seconds, or an HTTP date from now', () => {
    expect(retryAfterSeconds('30', now)).toBe(30);
    expect(retryAfterSeconds(' 0 ', now)).toBe(0);
    expect(retryAfterSeconds(new Date(now + 90_500).toUTCString(), now)).toBe(90);
    expect(retryAfterSeconds(new Date(now - 5_000).toUTCString(), now)).toBe(0);
  });
  it('is null when absent or unreadable', () => {
    expect(retryAfterSeconds(null, now)).toBeNull();
    expect(retryAfterSeconds('', now)).toBeNull();
    expect(retryAfterSeconds('soon', now)).toBeNull();
    expect(retryAfterSeconds('-3', now)).toBeNull();
  });
});

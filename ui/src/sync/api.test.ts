import { describe, expect, it } from 'vitest';
import { parseSyncInfo } from './api';

describe('parseSyncInfo (the hearth-sync block the server writes into the page)', () => {
  it('reads the limits when sync is on', () => {
    expect(parseSyncInfo('{"keyRequired":true,"maxBytes":8388608}')).toEqual({ keyRequired: true, maxBytes: 8388608 });
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

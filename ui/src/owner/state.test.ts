// What the owner page shows as its checks come and go.
import { describe, expect, it } from 'vitest';
import type { Owner } from './owner';
import { initialOwnerState, ownerReducer, type OwnerAction, type OwnerState } from './state';

const OWNER: Owner = {
  version: '0.1.0',
  checks: [],
  calendars: [],
  sync: null,
  feeds: null,
  backups: null,
  replication: null,
  notifications: null,
  site: null,
};
const AT = new Date('2026-11-25T10:00:00Z');
const run = (actions: OwnerAction[], from: OwnerState = initialOwnerState) => actions.reduce(ownerReducer, from);
const ready = run([{ type: 'loaded', owner: OWNER, at: AT }]);

describe('the owner page state', () => {
  it('starts loading, then shows the answer', () => {
    expect(initialOwnerState).toEqual({ kind: 'loading' });
    expect(ready).toEqual({ kind: 'ready', owner: OWNER, checkedAt: AT, checking: false, problem: null });
  });

  it('is not found when the site has no key (404), before or after an answer', () => {
    expect(run([{ type: 'failed', status: 404, message: 'not found' }])).toEqual({ kind: 'notFound' });
    expect(run([{ type: 'check' }, { type: 'failed', status: 404, message: 'not found' }], ready)).toEqual({ kind: 'notFound' });
  });

  it('says so when the key prompt was cancelled, and starts again on a new check', () => {
    const cancelled = run([{ type: 'cancelled' }]);
    expect(cancelled).toEqual({ kind: 'noKey' });
    expect(ownerReducer(cancelled, { type: 'check' })).toEqual({ kind: 'loading' });
  });

  it('tells a first failure in a sentence', () => {
    expect(run([{ type: 'failed', status: 0, message: 'the server could not be reached' }])).toEqual({
      kind: 'failed',
      message: 'The owner page could not be loaded: the server could not be reached.',
    });
    expect(run([{ type: 'failed', status: 500, message: 'database locked.' }])).toEqual({
      kind: 'failed',
      message: 'The owner page could not be loaded: database locked.',
    });
  });

  it('keeps the last answer while checking again, and after a check that failed', () => {
    const checking = ownerReducer(ready, { type: 'check' });
    expect(checking).toEqual({ ...ready, checking: true });
    expect(ownerReducer(checking, { type: 'check' })).toBe(checking);
    expect(ownerReducer(checking, { type: 'failed', status: 503, message: 'busy' })).toEqual({ ...ready, problem: 'Not checked again: busy.' });
    expect(ownerReducer(checking, { type: 'cancelled' })).toEqual({ ...ready, problem: "Not checked again: this page needs the site's publish key." });
  });

  it('takes a new answer with its time, clearing the last problem', () => {
    const later = new Date('2026-11-25T10:05:00Z');
    const failedOnce = run([{ type: 'check' }, { type: 'failed', status: 0, message: 'x' }], ready);
    expect(run([{ type: 'check' }, { type: 'loaded', owner: OWNER, at: later }], failedOnce)).toEqual({
      kind: 'ready',
      owner: OWNER,
      checkedAt: later,
      checking: false,
      problem: null,
    });
    expect(ownerReducer(failedOnce, { type: 'check' })).toMatchObject({ checking: true, problem: null });
  });
});

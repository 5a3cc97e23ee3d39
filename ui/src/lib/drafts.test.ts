import { describe, expect, it } from 'vitest';
import { mustAskBeforeUnload, restoredMessage, shouldConfirmLeave } from './drafts';

describe('leaving unsaved work', () => {
  const base = { dirty: true, allowed: false, from: '/calendars/new', to: '/calendars', keepDraft: () => true };

  it('asks only when the draft could not be written', () => {
    expect(shouldConfirmLeave(base)).toBe(false);
    expect(shouldConfirmLeave({ ...base, keepDraft: () => false })).toBe(true);
  });

  it('writes nothing and asks nothing without changes, when allowed, or when staying on the page', () => {
    let writes = 0;
    const keepDraft = () => {
      writes += 1;
      return false;
    };
    expect(shouldConfirmLeave({ ...base, dirty: false, keepDraft })).toBe(false);
    expect(shouldConfirmLeave({ ...base, allowed: true, keepDraft })).toBe(false);
    expect(shouldConfirmLeave({ ...base, to: base.from, keepDraft })).toBe(false);
    expect(writes).toBe(0);
  });

  it('lets a tab close with a kept draft, and asks when the draft was lost', () => {
    expect(mustAskBeforeUnload({ dirty: true, draftKept: true })).toBe(false);
    expect(mustAskBeforeUnload({ dirty: true, draftKept: false })).toBe(true);
    expect(mustAskBeforeUnload({ dirty: false, draftKept: false })).toBe(false);
  });
});

describe('the restored draft notice', () => {
  it('says the time of a draft from today, the date of an older one, and nothing it cannot read', () => {
    const now = new Date(2026, 10, 27, 18, 0);
    expect(restoredMessage(new Date(2026, 10, 27, 16, 5).toISOString(), now, 'en-GB')).toBe('Restored your unsaved changes from 16:05.');
    expect(restoredMessage(new Date(2026, 10, 20, 16, 5).toISOString(), now, 'en-GB')).toBe('Restored your unsaved changes from 20 Nov 2026, 16:05.');
    expect(restoredMessage(null, now)).toBe('Restored your unsaved changes.');
    expect(restoredMessage('', now)).toBe('Restored your unsaved changes.');
    expect(restoredMessage('soon', now)).toBe('Restored your unsaved changes.');
  });
});

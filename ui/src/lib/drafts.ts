// Unsaved work kept as a draft in this browser, as every editor keeps it: leaving asks only when
// leaving would lose something (the draft could not be written), and a restored draft says when
// it is from. Pure; the screens write their drafts (useDraftKeeping.ts runs these rules).

export interface LeaveRequest {
  /** Changes not saved yet. */
  dirty: boolean;
  /** The editor itself is navigating (after a save or a delete), or the visitor already chose. */
  allowed: boolean;
  from: string;
  to: string;
  /** Writes the draft now; false when it could not be written (a full quota, storage disabled). */
  keepDraft: () => boolean;
}

/**
 * In-app navigation away from unsaved changes asks first only when leaving would lose them: the
 * draft is written on the way out and comes back when the editor opens again, so the question is
 * left for a draft that could not be written. Staying on the same page never asks, and the draft
 * is written only when nothing else lets the navigation go.
 */
export function shouldConfirmLeave({ dirty, allowed, from, to, keepDraft }: LeaveRequest): boolean {
  return dirty && !allowed && from !== to && !keepDraft();
}

/**
 * Closing or reloading the tab asks (the browser's "Leave site?") only when leaving would lose
 * something: unsaved changes whose draft could not be written. A kept draft comes back on return,
 * so asking then would only stop the reload.
 */
export function mustAskBeforeUnload({ dirty, draftKept }: { dirty: boolean; draftKept: boolean }): boolean {
  return dirty && !draftKept;
}

/** "Restored your unsaved changes from 16:05." for the notice (the time when the draft knows it). */
export function restoredMessage(savedAt: string | null, now: Date = new Date(), locale?: string): string {
  const date = savedAt === null || savedAt === '' ? null : new Date(savedAt);
  if (!date || Number.isNaN(date.getTime())) return 'Restored your unsaved changes.';
  const today = now.toDateString() === date.toDateString();
  const when = today
    ? date.toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit' })
    : date.toLocaleString(locale, { dateStyle: 'medium', timeStyle: 'short' });
  return `Restored your unsaved changes from ${when}.`;
}

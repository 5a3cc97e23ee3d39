// The owner page's notifications (--notify-url, issue 37): the part of GET /api/owner that says
// whether an address is set (never the address itself) and what was sent since the start, read
// leniently like the rest of owner.ts, and what the page says of it and of a test notification.
import * as v from 'valibot';
import { record, words } from '../lib/schema';
import { formatCount } from '../lib/units';
import { instant } from '../lib/when';

const whole = v.fallback(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0))), null);

export const NotificationsSchema = record({
  configured: v.fallback(v.nullable(v.boolean()), null),
  checks: whole,
  checkedAt: instant,
  sent: whole,
  failed: whole,
  pending: whole,
  lastFailure: words,
  lastFailureAt: instant,
});

export type Notifications = v.InferOutput<typeof NotificationsSchema>;

/** How to set an address, said when none is set. */
export const HOW_TO_SET =
  'To be told when a check turns bad (and when it is good again), start Hearth with --notify-url and an ntfy topic (https://ntfy.sh/your-topic, or your own ntfy server) or any webhook that takes a POST of text, e.g. HEARTH_NOTIFY_URL in the environment file, then restart it.';

/** The section's first sentence. */
export function notificationsSummary(notifications: Notifications | null): string {
  if (notifications === null || notifications.configured === null) return 'The server sent nothing about notifications.';
  if (!notifications.configured) return 'Notifications are not set.';
  return 'Notifications are set: the server runs the checks every few minutes and sends a message when one turns bad, at most one a day while it stays bad, and one when it is good again.';
}

/** What was sent since the server started, in one line; null when nothing is known. */
export function sentText(notifications: Notifications): string | null {
  const { sent, failed, pending } = notifications;
  if (sent === null && failed === null) return null;
  const parts = [`${formatCount(sent ?? 0)} sent`];
  if (failed) parts.push(`${formatCount(failed)} not delivered`);
  if (pending) parts.push(`${formatCount(pending)} waiting`);
  return `Since the server started: ${parts.join(', ')}.`;
}

/** The state of the test button, and what the polite line under it says. */
export type TestState = { kind: 'idle' } | { kind: 'sending' } | { kind: 'delivered' } | { kind: 'failed'; message: string };

export function testLine(state: TestState): string {
  switch (state.kind) {
    case 'idle':
      return '';
    case 'sending':
      return 'Sending a test notification…';
    case 'delivered':
      return 'The test notification was delivered: look for it where your notifications arrive.';
    case 'failed':
      return /[.!?]$/.test(state.message) ? `Not sent: ${state.message}` : `Not sent: ${state.message}.`;
  }
}

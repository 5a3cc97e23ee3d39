// The owner page's notifications: the answer's part read leniently, and the page's words.
import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { HOW_TO_SET, NotificationsSchema, notificationsSummary, sentText, testLine } from './notifications';
import { parseOwner } from './owner';

const read = (value: unknown) => v.parse(NotificationsSchema, value);

describe('notifications', () => {
  it('reads the answer, and no field of it as no data', () => {
    const n = read({
      configured: true,
      checks: 3,
      checkedAt: '2023-11-14T22:13:20Z',
      sent: 2,
      failed: 1,
      pending: 0,
      lastFailure: 'the notification service answered 500',
      lastFailureAt: '2023-11-14T22:13:20Z',
    });
    expect(n.configured).toBe(true);
    expect(n.checkedAt?.toISOString()).toBe('2023-11-14T22:13:20.000Z');
    expect(n.lastFailure).toBe('the notification service answered 500');
    const odd = read({ configured: 'yes', sent: -1, checkedAt: 1_700_000_000_000 });
    expect(odd).toMatchObject({ configured: null, sent: null, checkedAt: null, lastFailure: null });
    expect(parseOwner({ version: 'x' })?.notifications).toBeNull();
    expect(parseOwner({ notifications: { configured: false } })?.notifications?.configured).toBe(false);
  });

  it('says whether notifications are set, and how to set them', () => {
    expect(notificationsSummary(null)).toBe('The server sent nothing about notifications.');
    expect(notificationsSummary(read({ configured: false }))).toBe('Notifications are not set.');
    expect(notificationsSummary(read({ configured: true }))).toMatch(/^Notifications are set: .+ at most one a day while it stays bad/);
    expect(HOW_TO_SET).toContain('--notify-url');
    expect(HOW_TO_SET).toContain('https://ntfy.sh/your-topic');
  });

  it('counts what was sent, and says only what happened', () => {
    expect(sentText(read({ configured: true }))).toBeNull();
    expect(sentText(read({ configured: true, sent: 0, failed: 0, pending: 0 }))).toBe('Since the server started: 0 sent.');
    expect(sentText(read({ configured: true, sent: 1200, failed: 2, pending: 1 }))).toBe('Since the server started: 1,200 sent, 2 not delivered, 1 waiting.');
  });

  it('says how the test went, as a sentence', () => {
    expect(testLine({ kind: 'idle' })).toBe('');
    expect(testLine({ kind: 'sending' })).toBe('Sending a test notification…');
    expect(testLine({ kind: 'delivered' })).toMatch(/^The test notification was delivered/);
    expect(testLine({ kind: 'failed', message: 'the test notification was not delivered: the notification service answered 503' })).toBe(
      'Not sent: the test notification was not delivered: the notification service answered 503.',
    );
    expect(testLine({ kind: 'failed', message: 'wait before sending another test notification.' })).toBe(
      'Not sent: wait before sending another test notification.',
    );
  });
});

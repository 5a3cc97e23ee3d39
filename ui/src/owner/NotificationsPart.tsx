// The owner page's notifications: whether an address is set (never the address), what was sent,
// and "Send a test notification", whose outcome the polite line under it says; with no address,
// how to set one.
import { useState } from 'react';
import { BellRing } from 'lucide-react';
import { withSiteKey } from '../lib/siteKey';
import { ownerKeyDeps, sendTestNotification } from './api';
import { HOW_TO_SET, notificationsSummary, sentText, testLine, type Notifications, type TestState } from './notifications';

export function NotificationsPart({ notifications }: { notifications: Notifications | null }) {
  const [test, setTest] = useState<TestState>({ kind: 'idle' });
  const sending = test.kind === 'sending';
  const send = () => {
    if (sending) return;
    setTest({ kind: 'sending' });
    void withSiteKey((key) => sendTestNotification(key), ownerKeyDeps).then((outcome) => {
      if (outcome.kind === 'done') setTest({ kind: 'delivered' });
      else if (outcome.kind === 'cancelled') setTest({ kind: 'idle' });
      else setTest({ kind: 'failed', message: outcome.message });
    });
  };
  const configured = notifications?.configured === true;
  const sent = notifications && configured ? sentText(notifications) : null;
  return (
    <>
      <p>{notificationsSummary(notifications)}</p>
      {notifications?.configured === false && <p className="hint">{HOW_TO_SET}</p>}
      {sent && <p className="hint">{sent}</p>}
      {configured && notifications.lastFailure && <p className="hint">The last message not delivered: {notifications.lastFailure}</p>}
      {configured && (
        <div className="owner-notify">
          <button type="button" className="button" onClick={send} aria-disabled={sending || undefined}>
            <BellRing aria-hidden="true" size={16} />
            Send a test notification
          </button>
          <p className="hint owner-notify__outcome" aria-live="polite">
            {testLine(test)}
          </p>
        </div>
      )}
    </>
  );
}

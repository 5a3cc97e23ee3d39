// The deck editor's Share button: a read-only link to this deck (its own key), with a QR code,
// and Revoke; the dialog says how long the server keeps a link nobody opens.
import { useId, useRef, useState } from 'react';
import { Share2, X } from 'lucide-react';
import { shareUrl } from './links';
import { LinkBox } from './LinkBox';
import { revokeShare, shareDeck, shareOf, type MadeShare } from './shares';
import { useBusyAction } from './useBusyAction';
import { useSyncInfo } from './useSync';
import { shareExpiryText } from './words';

export function ShareDeckButton({ deckId }: { deckId: string }) {
  const info = useSyncInfo();
  const dialog = useRef<HTMLDialogElement>(null);
  const [share, setShare] = useState<MadeShare | null>(() => shareOf(deckId));
  const { busy, error, run } = useBusyAction();
  const id = useId();
  if (!info) return null;
  const expiry = shareExpiryText(info.shareExpiryDays);

  return (
    <>
      <button type="button" className="button" onClick={() => dialog.current?.showModal()}>
        <Share2 aria-hidden="true" size={16} />
        Share
      </button>
      <dialog ref={dialog} className="dialog" aria-labelledby={`${id}-title`}>
        <div className="dialog__panel">
          <div className="dialog__header">
            <h2 id={`${id}-title`}>Share this deck</h2>
            <button type="button" className="icon-button" aria-label="Close" onClick={() => dialog.current?.close()}>
              <X aria-hidden="true" size={18} />
            </button>
          </div>
          <p>
            Anyone with the link can see this deck as it is saved now and add a copy to their decks. The deck is encrypted in this browser; the key is in the
            link, never on the server.
            {expiry && ` ${expiry}`}
          </p>
          {share ? (
            <>
              <LinkBox url={shareUrl(window.location.origin, share)} label="Share link" qrLabel="QR code of the share link" />
              <button
                type="button"
                className="button button--danger"
                disabled={busy}
                onClick={() =>
                  void run(async () => {
                    await revokeShare(deckId);
                    setShare(null);
                  })
                }
              >
                Revoke link
              </button>
            </>
          ) : (
            <button type="button" className="button button--primary" disabled={busy} onClick={() => void run(async () => setShare(await shareDeck(deckId)))}>
              {busy ? 'Creating link…' : 'Create share link'}
            </button>
          )}
          {error && (
            <p className="alert alert--warning" role="alert">
              {error}
            </p>
          )}
        </div>
      </dialog>
    </>
  );
}

// The deck editor's Share button: a read-only link to this deck (its own key), with a QR code,
// "Share…" through the device's share sheet, "Copy link", and Revoke apart and quiet at the end;
// the dialog says how long the server keeps a link nobody opens, and whether the link shows the
// deck as saved now (it follows each save by itself: shareUpdates.ts), with "Create a new link"
// when the server no longer has it. The site's key, when a link needs it, is asked for in a dialog.
import { useId, useRef, useState } from 'react';
import { Share2, X } from 'lucide-react';
import { syncAdapters } from '../lib/syncAdapters';
import { KeyQuestionHost } from './KeyDialog';
import { shareUrl } from './links';
import { LinkBox } from './LinkBox';
import { revokeShare, shareDeck, shareOf, type MadeShare } from './shares';
import { followState, forgetFollow, noteShareMade } from './shareUpdates';
import { useShareUpdates } from './useShareUpdates';
import { useBusyAction } from './useBusyAction';
import { useSyncInfo } from './useSync';
import { shareExpiryText } from './words';

export function ShareDeckButton({ deckId }: { deckId: string }) {
  const info = useSyncInfo();
  const dialog = useRef<HTMLDialogElement>(null);
  const [share, setShare] = useState<MadeShare | null>(() => shareOf(deckId));
  const { busy, error, run } = useBusyAction();
  const [name, setName] = useState('');
  const id = useId();
  useShareUpdates();
  if (!info) return null;
  const gone = share !== null && followState(deckId).phase === 'gone';
  const makeLink = async () => {
    const made = await shareDeck(deckId);
    if (made) await noteShareMade(deckId);
    setShare(made);
  };
  /** "Revoke link", and the first step of a new link once the old one is gone. */
  const takeDown = async () => {
    await revokeShare(deckId);
    forgetFollow(deckId);
    setShare(null);
  };
  const expiry = shareExpiryText(info.shareExpiryDays);

  return (
    <>
      <button
        type="button"
        className="button"
        onClick={() => {
          // The deck's name as saved now, for the share sheet.
          void syncAdapters().then((adapters) => setName(adapters.decks.readDeck(deckId)?.name.trim() ?? ''));
          dialog.current?.showModal();
        }}
      >
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
            Anyone with the link can see this deck as you last saved it and add a copy to their decks. Each time you save the deck, the shared copy follows, and
            those who added it are offered the update. The deck is encrypted in this browser; the key is in the link, never on the server.
            {expiry && ` ${expiry}`}
          </p>
          {gone ? (
            <>
              <p className="alert alert--warning">This link no longer works: it was revoked or expired. Those who added the deck keep their copies.</p>
              <button
                type="button"
                className="button button--primary"
                disabled={busy}
                onClick={() =>
                  void run(async () => {
                    await takeDown();
                    await makeLink();
                  })
                }
              >
                {busy ? 'Creating link…' : 'Create a new link'}
              </button>
            </>
          ) : share ? (
            <>
              <LinkBox
                url={shareUrl(window.location.origin, share)}
                label="Share link"
                qrLabel="QR code of the share link"
                share={{ title: name || 'A shared deck', text: name ? `The flashcard deck “${name}”` : 'A flashcard deck' }}
              />
              <div className="share-dialog__revoke">
                <p className="hint">Revoking stops the link for everyone; those who added the deck keep their copies.</p>
                <button type="button" className="button button--quiet" disabled={busy} onClick={() => void run(takeDown)}>
                  Revoke link
                </button>
              </div>
            </>
          ) : (
            <button type="button" className="button button--primary" disabled={busy} onClick={() => void run(makeLink)}>
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
      <KeyQuestionHost />
    </>
  );
}

// /sync: "Sync this browser" (make a vault, and a one-time link with its QR code for another
// device: handover.ts), joining from a link (a one-time #h=…&k=…, or a vault's own #v=…&k=…&t=…;
// the server never sees either), the state of this browser's sync, more one-time links, the vault's
// own link on request, replacing the link (after a confirmation), and what to do when the server
// no longer has the vault: join the link another device replaced it with (pasted here), or only
// then make a separate new one. The site's key, when needed, is asked for in a dialog (KeyDialog.tsx).
import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { KeyRound, Link2, RefreshCw } from 'lucide-react';
import { useDocumentTitle } from '../lib/useDocumentTitle';
import { createVault, forgetVault, hasPendingVault, hasRetiredVault, joinVault, readVault, replaceVault, startBackgroundSync, syncNow } from './engine';
import { dropHandover, HANDOVER_USED, makeHandover, redeemHandover } from './handover';
import { KeyQuestionHost } from './KeyDialog';
import { handoverUrl, parseSyncHash, parseSyncLinkText, vaultUrl, type ArrivingLink, type HandoverLink } from './links';
import { LinkBox } from './LinkBox';
import { ReplaceLinkDialog } from './ReplaceLinkDialog';
import { useBusyAction } from './useBusyAction';
import { useSyncInfo, useSyncStatus } from './useSync';
import { retryText, syncedWhen, VAULT_GONE_NEXT, VAULT_GONE_START_AGAIN, vaultExpiryText, vaultGoneText } from './words';

/** Makes a vault of this browser's decks; the one-time link for another device, or null when cancelled. */
async function startSyncing(): Promise<HandoverLink | null> {
  const vault = await createVault();
  if (!vault) return null;
  startBackgroundSync();
  return makeHandover(vault);
}

/** Joins the vault a link brings (a one-time link is read, and so used up, first), merging the decks here with it. */
async function join(arriving: ArrivingLink) {
  const link = arriving.kind === 'vault' ? arriving.link : await redeemHandover(arriving.link);
  if (!link) throw new Error(HANDOVER_USED);
  // This browser syncs that vault already: nothing to join.
  if (readVault()?.id !== link.id || readVault()?.gone) await joinVault(link);
  startBackgroundSync();
}

/** The gone state's first step: the link another device replaced this one with, pasted here. */
function JoinNewLink({ busy, onJoin }: { busy: boolean; onJoin: (link: ArrivingLink) => void }) {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <form
      className="sync-join"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        const link = parseSyncLinkText(text, window.location.origin);
        if (link === 'other') setProblem('This link is for another site: open it there.');
        else if (!link) setProblem('This is not a whole sync link: copy it again from the device that has it (it starts with this site’s address and /sync#).');
        else onJoin(link);
      }}
    >
      <label className="field">
        The new sync link
        <input
          className="input"
          type="url"
          autoComplete="off"
          spellCheck={false}
          value={text}
          aria-invalid={problem !== null}
          aria-describedby={problem ? 'sync-join-problem' : undefined}
          onChange={(event) => {
            setText(event.target.value);
            setProblem(null);
          }}
        />
      </label>
      {problem && (
        <p id="sync-join-problem" className="error-text">
          {problem}
        </p>
      )}
      <button type="submit" className="button button--primary" disabled={busy || text.trim() === ''}>
        {busy ? 'Joining…' : 'Join with this link'}
      </button>
    </form>
  );
}

export function SyncPage() {
  useDocumentTitle('Sync');
  const info = useSyncInfo();
  const status = useSyncStatus();
  // The link's secrets leave the address bar (and the tab's history entry) at once; this page
  // keeps them. (The browser's record of visited addresses keeps what was opened: hence one-time
  // links, handover.ts.)
  const [offered, setOffered] = useState<ArrivingLink | null>(() => parseSyncHash(window.location.hash));
  useEffect(() => {
    if (window.location.hash) window.history.replaceState(window.history.state, '', window.location.pathname);
  }, []);
  const [vault, setVault] = useState(readVault);
  /** The one-time link made on this visit for another device. */
  const [handover, setHandover] = useState<HandoverLink | null>(null);
  const { busy, error, run } = useBusyAction(() => setVault(readVault()));
  const [confirmingReplace, setConfirmingReplace] = useState(false);
  const [replaced, setReplaced] = useState(false);
  const replaceButton = useRef<HTMLButtonElement>(null);
  const replacedNotice = useRef<HTMLParagraphElement>(null);
  // Where the focus goes once a replacement is over: to what it did, or back to its button. (The
  // closing dialog hands the focus to that button while it is still disabled, so it would be lost.)
  const focusAfterReplace = useRef<'notice' | 'button' | null>(null);
  useEffect(() => {
    if (busy || confirmingReplace || focusAfterReplace.current === null) return;
    (focusAfterReplace.current === 'notice' ? replacedNotice.current : replaceButton.current)?.focus();
    focusAfterReplace.current = null;
  }, [busy, confirmingReplace]);
  // The engine finds the vault gone (or syncs it) after this page read it.
  const gone = status.phase === 'gone' || vault?.gone === true;

  if (info === undefined) return <section className="page sync-page" aria-busy="true" />;
  if (info === null) {
    return (
      <section className="page sync-page">
        <h1>Sync</h1>
        <p>Sync is turned off on this server. Your decks stay in this browser.</p>
        <Link to="/flashcards">Back to decks</Link>
      </section>
    );
  }

  const joining = offered && (offered.kind === 'handover' || offered.link.id !== vault?.id) ? offered : null;
  const expiry = vaultExpiryText(info.vaultExpiryDays);
  // The server asked to be left alone until then: Sync now waits too.
  const waiting = status.phase === 'error' && status.retryAt !== null;
  return (
    <section className="page page--narrow sync-page" aria-labelledby="sync-title">
      <h1 id="sync-title">Sync</h1>
      <p>
        Keep your decks, their review history and your saved calendars on every device, without an account. Everything is encrypted in the browser with a key
        that exists only in the sync link: the server stores data it cannot read.
        {expiry && ` ${expiry}`}
      </p>
      {joining ? (
        <div className="card sync-card">
          <h2>Join this sync</h2>
          <p>The decks in this browser and those of your other devices are merged; nothing is lost.</p>
          <button
            type="button"
            className="button button--primary"
            disabled={busy}
            onClick={() =>
              void run(async () => {
                await join(joining);
                // Joined: the link (a one-time one is used up) is done with.
                setOffered(null);
              })
            }
          >
            {busy ? 'Joining…' : 'Join and sync'}
          </button>
        </div>
      ) : vault && gone ? (
        <div className="card sync-card">
          <h2>Sync stopped</h2>
          <p role="status" className="sync-status" data-sync-phase="gone">
            {vaultGoneText(info.vaultExpiryDays)}
          </p>
          <p>{VAULT_GONE_NEXT}</p>
          <JoinNewLink
            busy={busy}
            onJoin={(link) =>
              void run(async () => {
                await join(link);
                setOffered(null);
              })
            }
          />
          <p>{VAULT_GONE_START_AGAIN}</p>
          <div className="sync-card__actions">
            <button type="button" className="button" disabled={busy} onClick={() => void run(async () => setHandover(await startSyncing()))}>
              {busy ? 'Creating…' : 'Start syncing this browser again'}
            </button>
            <button
              type="button"
              className="button button--quiet"
              onClick={() => {
                void dropHandover();
                forgetVault();
                setVault(null);
              }}
            >
              Stop syncing this browser
            </button>
          </div>
        </div>
      ) : vault ? (
        <div className="card sync-card">
          <h2>This browser is synced</h2>
          <p role="status" className="sync-status" data-sync-phase={status.phase}>
            {status.phase === 'syncing'
              ? 'Syncing…'
              : status.phase === 'offline'
                ? 'Offline: changes sync when the connection returns.'
                : `Last synced: ${syncedWhen(status.lastSyncedAt ?? vault.lastSyncedAt)}`}
          </p>
          {status.phase === 'error' && status.error && (
            <p className="alert alert--warning">
              {status.error}
              {status.retryAt !== null && ` ${retryText(status.retryAt)}`}
            </p>
          )}
          {replaced && (
            <p ref={replacedNotice} tabIndex={-1} className="notice" role="status">
              The sync link was replaced: open a new link from here on each of your other devices to keep them syncing (one link per device).
              {hasRetiredVault() && ' The old link is removed as soon as the server answers.'}
            </p>
          )}
          {handover ? (
            <>
              <p>
                Open this link (or scan the code) on your other device to sync it too. It works once, for one device: what that browser keeps in its history
                opens nothing afterwards. Keep it private until then.
              </p>
              <LinkBox url={handoverUrl(window.location.origin, handover)} label="Sync link" qrLabel="QR code of the sync link" />
            </>
          ) : (
            <p>
              To sync another device, make a link for it here and open it there: each link works once, so nothing in that browser’s history opens your decks
              later.
            </p>
          )}
          <button
            type="button"
            className={handover ? 'button' : 'button button--primary'}
            disabled={busy}
            onClick={() => void run(async () => setHandover(await makeHandover(vault)))}
          >
            <Link2 aria-hidden="true" size={16} />
            {handover ? 'Make a link for one more device' : 'Make a link for another device'}
          </button>
          <details className="sync-permanent">
            <summary>This browser’s permanent sync link</summary>
            <p className="hint">
              It works on any number of devices until you replace it, and a browser that opens it keeps it in its history (which then opens your decks): prefer
              a one-time link.
            </p>
            <label className="field">
              Permanent link
              <input
                className="input sync-link__url"
                readOnly
                value={vaultUrl(window.location.origin, vault)}
                onFocus={(event) => event.currentTarget.select()}
              />
            </label>
          </details>
          <div className="sync-card__actions">
            <button type="button" className="button" disabled={busy || waiting} onClick={() => void run(syncNow)}>
              <RefreshCw aria-hidden="true" size={16} />
              Sync now
            </button>
            <button ref={replaceButton} type="button" className="button" disabled={busy || waiting} onClick={() => setConfirmingReplace(true)}>
              <KeyRound aria-hidden="true" size={16} />
              {busy && confirmingReplace ? 'Replacing…' : 'Replace the sync link'}
            </button>
            <button
              type="button"
              className="button button--quiet"
              onClick={() => {
                if (!window.confirm('Stop syncing this browser? Its decks stay here; your other devices keep syncing.')) return;
                void dropHandover();
                forgetVault();
                setVault(null);
                setHandover(null);
              }}
            >
              Stop syncing this browser
            </button>
          </div>
        </div>
      ) : (
        <div className="card sync-card">
          <h2>Sync this browser</h2>
          <p>Makes an encrypted copy on this server and gives you a link to open on your other devices.</p>
          {hasPendingVault() && <p>The last try did not hear back from the server; trying again finishes it without a second copy.</p>}
          <button type="button" className="button button--primary" disabled={busy} onClick={() => void run(async () => setHandover(await startSyncing()))}>
            {busy ? 'Creating…' : 'Sync this browser'}
          </button>
        </div>
      )}
      {error && (
        <p className="alert alert--warning" role="alert">
          {error}
        </p>
      )}
      {confirmingReplace && !busy && (
        <ReplaceLinkDialog
          onKeep={() => setConfirmingReplace(false)}
          onReplace={() => {
            setReplaced(false);
            let done = false;
            void run(async () => {
              setHandover(null);
              done = await replaceVault();
              if (!done) return;
              setReplaced(true);
              // A one-time link made before hands over the old vault: a new one for the new.
              const replacement = readVault();
              if (replacement) setHandover(await makeHandover(replacement));
            }).finally(() => {
              focusAfterReplace.current = done ? 'notice' : 'button';
              setConfirmingReplace(false);
            });
          }}
        />
      )}
      <KeyQuestionHost />
      <Link to="/flashcards">Back to decks</Link>
    </section>
  );
}

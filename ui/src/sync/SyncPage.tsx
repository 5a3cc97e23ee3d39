// /sync: "Sync this browser" (make a vault, show its link and QR code), joining from a vault's
// link (#v=…&k=…&t=…, which the server never sees), the state of this browser's sync, replacing
// the link (after a confirmation), and what to do when the server no longer has the vault: join
// the link another device replaced it with (pasted here), or only then make a separate new one.
// The site's key, when making a vault needs it, is asked for in a dialog (KeyDialog.tsx).
import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { KeyRound, RefreshCw } from 'lucide-react';
import { useDocumentTitle } from '../lib/useDocumentTitle';
import { createVault, forgetVault, hasPendingVault, hasRetiredVault, joinVault, readVault, replaceVault, startBackgroundSync, syncNow } from './engine';
import { KeyQuestionHost } from './KeyDialog';
import { parseVaultHash, parseVaultLinkText, vaultUrl, type VaultLink } from './links';
import { LinkBox } from './LinkBox';
import { ReplaceLinkDialog } from './ReplaceLinkDialog';
import { useBusyAction } from './useBusyAction';
import { useSyncInfo, useSyncStatus } from './useSync';
import { retryText, syncedWhen, VAULT_GONE_NEXT, VAULT_GONE_START_AGAIN, vaultExpiryText, vaultGoneText } from './words';

async function startSyncing() {
  if (await createVault()) startBackgroundSync();
}

/** Joins `link`, merging the decks here with it. */
async function join(link: VaultLink) {
  await joinVault(link);
  startBackgroundSync();
}

/** The gone state's first step: the link another device replaced this one with, pasted here. */
function JoinNewLink({ busy, onJoin }: { busy: boolean; onJoin: (link: VaultLink) => void }) {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <form
      className="sync-join"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        const link = parseVaultLinkText(text, window.location.origin);
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
  // The link's secrets leave the address bar (and history) at once; this page keeps them.
  const [offered] = useState<VaultLink | null>(() => parseVaultHash(window.location.hash));
  useEffect(() => {
    if (window.location.hash) window.history.replaceState(window.history.state, '', window.location.pathname);
  }, []);
  const [vault, setVault] = useState(readVault);
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

  const joining = offered && offered.id !== vault?.id ? offered : null;
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
          <button type="button" className="button button--primary" disabled={busy} onClick={() => void run(() => join(joining))}>
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
          <JoinNewLink busy={busy} onJoin={(link) => void run(() => join(link))} />
          <p>{VAULT_GONE_START_AGAIN}</p>
          <div className="sync-card__actions">
            <button type="button" className="button" disabled={busy} onClick={() => void run(startSyncing)}>
              {busy ? 'Creating…' : 'Start syncing this browser again'}
            </button>
            <button
              type="button"
              className="button button--quiet"
              onClick={() => {
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
              The sync link was replaced: open the new link below on your other devices to keep them syncing.
              {hasRetiredVault() && ' The old link is removed as soon as the server answers.'}
            </p>
          )}
          <p>Open this link (or scan the code) on your other device to sync it too. Keep it private: it opens your decks.</p>
          <LinkBox url={vaultUrl(window.location.origin, vault)} label="Sync link" qrLabel="QR code of the sync link" />
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
                forgetVault();
                setVault(null);
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
          <button type="button" className="button button--primary" disabled={busy} onClick={() => void run(startSyncing)}>
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
              done = await replaceVault();
              if (done) setReplaced(true);
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

// A line on a deck's card and in its editor for a deck that follows a share link: the sharer's
// ("Shared copy updated", "Shared copy is out of date — Update") or the one who added it ("An
// update to this shared deck is available" with a link to review it). Every state this deck can
// be in is laid out in the same grid cell and all but the current one hidden, so the line is
// as tall as its tallest state from the first render: nothing moves when an answer comes.
import { useEffect, type ReactNode } from 'react';
import { ButtonLink } from '../lib/ButtonLink';
import { shareOf } from './shares';
import { copyState, followState, isSharedCopy, updateSharedCopy } from './shareUpdates';
import { useCopyWatch, useShareUpdates } from './useShareUpdates';
import { retryText } from './words';
import './sync.css';

interface Line {
  key: string;
  content: ReactNode;
}

function Lines({ lines, shown }: { lines: Line[]; shown: string }) {
  return (
    <div className="share-status" role="status">
      {lines.map((line) => (
        <p key={line.key} className="share-status__line" data-shown={line.key === shown} aria-hidden={line.key !== shown}>
          {line.content}
        </p>
      ))}
    </div>
  );
}

function SharerStatus({ deckId }: { deckId: string }) {
  useShareUpdates();
  const state = followState(deckId);
  useEffect(() => {
    // Learns whether the link holds the deck as saved now (sends it when it does not).
    if (followState(deckId).phase === 'unknown') void updateSharedCopy(deckId);
  }, [deckId]);
  const shown = state.phase === 'unknown' ? 'current' : state.phase === 'current' && state.updatedAt !== null ? 'updated' : state.phase;
  const waitingUntil = state.phase === 'outdated' ? state.retryAt : null;
  return (
    <Lines
      shown={shown}
      lines={[
        { key: 'current', content: 'Shared: the link shows this deck as saved.' },
        { key: 'updating', content: 'Updating the shared copy…' },
        { key: 'updated', content: 'Shared copy updated.' },
        {
          key: 'outdated',
          content: (
            <>
              <span>Shared copy is out of date.</span>
              <button
                type="button"
                className="button button--quiet share-status__action"
                // The server asked to wait: the update is sent by itself then.
                disabled={waitingUntil !== null}
                title={waitingUntil !== null ? retryText(waitingUntil) : undefined}
                tabIndex={shown === 'outdated' ? undefined : -1}
                onClick={() => void updateSharedCopy(deckId, true)}
              >
                Update
              </button>
            </>
          ),
        },
        { key: 'gone', content: 'This deck’s share link no longer works: make a new one with Share.' },
      ]}
    />
  );
}

function CopyStatus({ deckId }: { deckId: string }) {
  useShareUpdates();
  useCopyWatch(deckId, true);
  const state = copyState(deckId);
  const shown = state.phase === 'unknown' ? 'current' : state.phase;
  return (
    <Lines
      shown={shown}
      lines={[
        { key: 'current', content: 'From a shared deck: its updates are offered here.' },
        {
          key: 'available',
          content: (
            <>
              <span>An update to this shared deck is available.</span>
              <ButtonLink look="quiet" className="share-status__action" to={`/sync/update/${deckId}`} tabIndex={shown === 'available' ? undefined : -1}>
                Review the update
              </ButtonLink>
            </>
          ),
        },
        { key: 'gone', content: 'The shared deck’s link was taken down; your copy stays.' },
        { key: 'failed', content: <span title={state.phase === 'failed' ? state.error : undefined}>Could not check this shared deck for updates.</span> },
      ]}
    />
  );
}

/** The slot's component: nothing for a deck that neither was shared here nor came from a link. */
export function DeckShareStatus({ deckId }: { deckId: string }) {
  // A link made or taken down on this screen shows at once.
  useShareUpdates();
  if (shareOf(deckId)) return <SharerStatus deckId={deckId} />;
  if (isSharedCopy(deckId)) return <CopyStatus deckId={deckId} />;
  return null;
}

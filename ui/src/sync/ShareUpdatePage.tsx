// /sync/update/:deckId: the review of a shared deck's update before the learner takes it: the
// rule in words, the cards it adds, changes and removes (tables of front and back; a changed side
// shows its old text struck out above its new one), the ones that keep the learner's edit,
// and "Take the update" (the flashcards' adapter keeps card ids, so progress stays).
import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { Download } from 'lucide-react';
import type { CardText, ShareUpdatePlan } from '../lib/syncAdapters';
import { ButtonLink } from '../lib/ButtonLink';
import { CardsTable } from './CardsTable';
import { useDocumentTitle } from '../lib/useDocumentTitle';
import { checkCopy, copyState, isSharedCopy, takeCopyUpdate } from './shareUpdates';
import { useBusyAction } from './useBusyAction';
import { useShareUpdates } from './useShareUpdates';
import { cards, shareGoneText, updateSummary } from './words';
import { useSyncInfo } from './useSync';

/** The rule, as README's sync section says it. */
export const UPDATE_RULE =
  'Taking it keeps your progress: every card keeps its reviews and schedule. Cards you have not edited take the sharer’s new text; cards you edited keep yours. The sharer’s new cards are added, and the cards they removed leave your copy unless you edited them. Cards you added or removed yourself stay as you have them.';

/** A group of cards as a table, front and back each in its own column. */
function CardTable({ title, cards }: { title: string; cards: readonly CardText[] }) {
  if (cards.length === 0) return null;
  return (
    <section className="share-update__group" aria-label={title}>
      <h2>{title}</h2>
      <CardsTable className="share-update__cards" rows={cards} front={(card) => card.front} back={(card) => card.back} />
    </section>
  );
}

/** One side of a changed card: as it is when unchanged, else the old text struck out and the new one. */
function ChangedSide({ before, after }: { before: string; after: string }) {
  if (before === after) return <>{after}</>;
  return (
    <>
      <del>
        <span className="visually-hidden">was: </span>
        {before}
      </del>
      <ins>
        <span className="visually-hidden">becomes: </span>
        {after}
      </ins>
    </>
  );
}

function Review({ plan }: { plan: ShareUpdatePlan }) {
  const changed = `${cards(plan.changed.length)} changed`;
  return (
    <>
      <CardTable title={`${cards(plan.added.length)} added`} cards={plan.added} />
      {plan.changed.length > 0 && (
        <section className="share-update__group" aria-label={changed}>
          <h2>{changed}</h2>
          <CardsTable
            className="share-update__cards share-update__cards--changed"
            rows={plan.changed}
            front={({ before, after }) => <ChangedSide before={before.front} after={after.front} />}
            back={({ before, after }) => <ChangedSide before={before.back} after={after.back} />}
          />
        </section>
      )}
      <CardTable title={`${cards(plan.removed.length)} removed`} cards={plan.removed} />
      <CardTable title={`${cards(plan.kept.length)} kept as you edited them`} cards={plan.kept} />
      {plan.detailsChanged && <p>The deck’s name, description or options change where you have not changed them.</p>}
    </>
  );
}

const titleOf = (plan: ShareUpdatePlan | null) => (plan ? `Update “${plan.name.trim() || 'Untitled deck'}”` : 'Update a shared deck');

export function ShareUpdatePage() {
  useDocumentTitle('Update a shared deck');
  const { deckId = '' } = useParams();
  const info = useSyncInfo();
  useShareUpdates();
  const [taken, setTaken] = useState<ShareUpdatePlan | null>(null);
  const [asked, setAsked] = useState(false);
  const { busy, error, run } = useBusyAction();
  const follows = isSharedCopy(deckId);

  useEffect(() => {
    if (!follows) return;
    void checkCopy(deckId).finally(() => setAsked(true));
  }, [deckId, follows]);

  const state = copyState(deckId);
  const back = <Link to="/flashcards">Your decks</Link>;
  let body;
  if (taken) {
    body = (
      <>
        <p className="notice" role="status">
          {updateSummary(taken)}
        </p>
        <div className="sync-card__actions">
          <ButtonLink look="primary" to={`/flashcards/${deckId}/practice`}>
            Practice
          </ButtonLink>
          <ButtonLink to="/flashcards">Your decks</ButtonLink>
        </div>
      </>
    );
  } else if (!follows) {
    body = (
      <>
        <p className="alert alert--warning">This deck does not follow a shared deck’s link.</p>
        {back}
      </>
    );
  } else if (state.phase === 'available') {
    const plan = state.plan;
    body = (
      <>
        <p>An update to this shared deck is available.</p>
        <p>{UPDATE_RULE}</p>
        <Review plan={plan} />
        <div className="sync-card__actions">
          <button
            type="button"
            className="button button--primary"
            disabled={busy}
            onClick={() =>
              void run(async () => {
                setTaken(await takeCopyUpdate(deckId));
              })
            }
          >
            <Download aria-hidden="true" size={16} />
            Take the update
          </button>
          <ButtonLink to="/flashcards">Not now</ButtonLink>
        </div>
      </>
    );
  } else if (!asked || state.phase === 'unknown') {
    return <section className="page page--narrow" aria-busy="true" />;
  } else {
    const words =
      state.phase === 'gone'
        ? `${shareGoneText(info?.shareExpiryDays)} Your copy stays as it is.`
        : state.phase === 'failed'
          ? `Could not check this shared deck for updates: ${state.error}`
          : 'Your copy is up to date with the shared deck.';
    body = (
      <>
        <p className={state.phase === 'current' ? 'notice' : 'alert alert--warning'}>{words}</p>
        {back}
      </>
    );
  }
  return (
    <section className="page page--narrow share-update" aria-labelledby="share-update-title">
      <h1 id="share-update-title">{titleOf(taken ?? (state.phase === 'available' ? state.plan : null))}</h1>
      {body}
      {error && (
        <p className="alert alert--warning" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

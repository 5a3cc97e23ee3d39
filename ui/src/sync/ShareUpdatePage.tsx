// /sync/update/:deckId: the review of a shared deck's update before the learner takes it: the
// rule in words, the cards it adds, changes and removes, the ones that keep the learner's edit,
// and "Take the update" (the flashcards' adapter keeps card ids, so progress stays).
import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { Download } from 'lucide-react';
import type { CardText, ShareUpdatePlan } from '../lib/syncAdapters';
import { ButtonLink } from '../lib/ButtonLink';
import { useDocumentTitle } from '../lib/useDocumentTitle';
import { checkCopy, copyState, isSharedCopy, takeCopyUpdate } from './shareUpdates';
import { useBusyAction } from './useBusyAction';
import { useShareUpdates } from './useShareUpdates';
import { cards, shareGoneText, updateSummary } from './words';
import { useSyncInfo } from './useSync';

/** The rule, as README's sync section says it. */
export const UPDATE_RULE =
  'Taking it keeps your progress: every card keeps its reviews and schedule. Cards you have not edited take the sharer’s new text; cards you edited keep yours. The sharer’s new cards are added, and the cards they removed leave your copy unless you edited them. Cards you added or removed yourself stay as you have them.';

function CardList({ title, cards }: { title: string; cards: readonly CardText[] }) {
  if (cards.length === 0) return null;
  return (
    <section className="share-update__group" aria-label={title}>
      <h2>{title}</h2>
      <ul className="share-update__cards">
        {cards.map((card, index) => (
          <li key={index}>
            <span className="share-update__front">{card.front}</span> <span className="share-update__back">{card.back}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Review({ plan }: { plan: ShareUpdatePlan }) {
  return (
    <>
      <CardList title={`${cards(plan.added.length)} added`} cards={plan.added} />
      {plan.changed.length > 0 && (
        <section className="share-update__group" aria-label={`${cards(plan.changed.length)} changed`}>
          <h2>{cards(plan.changed.length)} changed</h2>
          <ul className="share-update__cards">
            {plan.changed.map(({ before, after }, index) => (
              <li key={index}>
                <del>
                  {before.front} {before.back}
                </del>{' '}
                becomes{' '}
                <ins>
                  {after.front} {after.back}
                </ins>
              </li>
            ))}
          </ul>
        </section>
      )}
      <CardList title={`${cards(plan.removed.length)} removed`} cards={plan.removed} />
      <CardList title={`${cards(plan.kept.length)} kept as you edited them`} cards={plan.kept} />
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

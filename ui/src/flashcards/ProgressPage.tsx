// A deck's progress, from its review log (srs/stats.ts): cards by state, retention over the last
// 30 days, a 12-week heatmap of reviews per day (plain CSS grid), the current streak, and the
// deck's daily limit of new cards for "Review due"; practice by tag, and the leeches (cards
// forgotten 8 times) and suspended cards, each of which can be suspended or brought back; the
// schedule's own section (OptimiseSchedule.tsx: "Optimise my schedule", desired retention).
import './ProgressPage.css';
import { useMemo, useState } from 'react';
import { Navigate, useParams } from 'react-router';
import { CalendarClock, Pause, Play, Tag } from 'lucide-react';
import { ButtonLink } from '../lib/ButtonLink';
import { NumberField } from '../lib/NumberField';
import { useDocumentTitle } from '../lib/useDocumentTitle';
import { displayName, langLabel, type Deck } from './deck';
import { faces, keysByTag, practiceItems } from './practice';
import { tagQuery } from './tags';
import { LEECH_LAPSES, troubleCards, withSuspended } from './srs/leeches';
import { deckStore } from './storage';
import { StorageUsed } from './StorageUsed';
import { deckKeys, describeNextDue, nextDue, reviewDueCount } from './srs/due';
import { MAX_NEW_PER_DAY, withNewPerDay, withSettings, type ReviewRecord } from './srs/reviewLog';
import { OptimiseSchedule } from './OptimiseSchedule';
import { deckProgress, heatLevel, HEATMAP_WEEKS, RETENTION_DAYS, type HeatmapDay } from './srs/stats';

export function ProgressPage() {
  const { id = '' } = useParams();
  const deck = useMemo(() => deckStore.readDeck(id), [id]);
  if (!deck) return <Navigate to="/flashcards" replace />;
  return <Progress key={id} deck={deck} />;
}

const days = (count: number) => (count === 1 ? '1 day' : `${count} days`);

function Progress({ deck: storedDeck }: { deck: Deck }) {
  // Suspending a card here rewrites the deck: the page goes on with the deck as saved.
  const [deck, setDeck] = useState(storedDeck);
  const [suspendError, setSuspendError] = useState<string | null>(null);
  const name = displayName(deck.name);
  useDocumentTitle(`Progress · ${name}`);
  const [reviews, setReviews] = useState<ReviewRecord>(() => deckStore.readReviews(deck.id));
  const [now] = useState(() => Date.now());
  const keys = useMemo(() => deckKeys(deck), [deck]);
  const progress = useMemo(() => deckProgress(keys, reviews, now), [keys, reviews, now]);
  const reviewDue = reviewDueCount(keys, reviews, now);
  const { retention } = progress;

  return (
    <section className="page progress-page" aria-labelledby="progress-title">
      <div className="toolbar">
        <div className="toolbar__title practice__title">
          <h1 id="progress-title">{name}</h1>
          <span className="pill pill--accent">
            {langLabel(deck.sourceLang)} → {langLabel(deck.targetLang)}
          </span>
        </div>
        <ButtonLink look="primary" to={`/flashcards/${deck.id}/practice`}>
          <Play aria-hidden="true" size={16} />
          Practice
        </ButtonLink>
        {reviewDue > 0 && (
          <ButtonLink to={`/flashcards/${deck.id}/review`}>
            <CalendarClock aria-hidden="true" size={16} />
            Review due ({reviewDue})
          </ButtonLink>
        )}
        <ButtonLink look="quiet" to="/flashcards">
          All decks
        </ButtonLink>
      </div>

      <h2 className="progress-page__heading">Progress</h2>
      <p className="hint">{describeNextDue(nextDue(keys, reviews, now), now)}</p>
      <dl className="progress-stats">
        <div className="progress-stat">
          <dt>New</dt>
          <dd>{progress.new}</dd>
        </div>
        <div className="progress-stat">
          <dt>Learning</dt>
          <dd>{progress.learning}</dd>
        </div>
        <div className="progress-stat">
          <dt>Known</dt>
          <dd>{progress.known}</dd>
        </div>
        <div className="progress-stat">
          <dt>Retention, last {RETENTION_DAYS} days</dt>
          <dd>{retention.reviews === 0 ? '–' : `${Math.round((retention.knew / retention.reviews) * 100)}%`}</dd>
          {/* A second dd, not a span: a dl's groups hold only dt and dd (axe definition-list). */}
          <dd className="hint progress-stat__note">
            {retention.reviews === 0 ? 'No repeat reviews yet' : `Knew it in ${retention.knew} of ${retention.reviews} repeat reviews`}
          </dd>
        </div>
        <div className="progress-stat">
          <dt>Current streak</dt>
          <dd>{days(progress.streak)}</dd>
        </div>
      </dl>
      {deck.bidirectional && <p className="hint">Each card counts once per direction.</p>}

      <Heatmap days={progress.heatmap} total={progress.totalReviews} />

      <TagPractice deck={deck} reviews={reviews} now={now} />

      <Trouble
        deck={deck}
        reviews={reviews}
        error={suspendError}
        onSuspend={(cardId, suspended) => {
          const next = withSuspended(deck, cardId, suspended);
          const result = deckStore.saveDeck(next);
          if (result.ok) setDeck(next);
          setSuspendError(result.ok ? null : result.error);
        }}
      />

      <NewPerDay
        value={reviews.newPerDay}
        onSave={(newPerDay) => {
          const next = withNewPerDay(deckStore.readReviews(deck.id), newPerDay);
          const result = deckStore.writeReviews(deck.id, next);
          if (result.ok) setReviews(next);
          return result.ok ? null : result.error;
        }}
      />
      <OptimiseSchedule
        reviews={reviews}
        onSave={(change) => {
          const current = deckStore.readReviews(deck.id);
          const params = change.params === undefined ? current.params : (change.params ?? undefined);
          const retention = change.retention === undefined ? current.retention : (change.retention ?? undefined);
          const next = withSettings(current, params, retention);
          const result = deckStore.writeReviews(deck.id, next);
          if (result.ok) setReviews(next);
          return result.ok ? null : result.error;
        }}
      />
      <StorageUsed />
    </section>
  );
}

/** A link per tag to practice (and review due) limited to the cards with that tag. */
function TagPractice({ deck, reviews, now }: { deck: Deck; reviews: ReviewRecord; now: number }) {
  const tags = useMemo(() => keysByTag(deck), [deck]);
  if (tags.length === 0) return null;
  return (
    <section className="card progress-tags" aria-labelledby="progress-tags-title">
      <h2 id="progress-tags-title" className="progress-page__heading">
        Practice by tag
      </h2>
      <ul className="progress-tags__list">
        {tags.map(({ tag, keys }) => {
          const due = reviewDueCount(keys, reviews, now);
          return (
            <li key={tag} className="progress-tags__item">
              <ButtonLink
                to={`/flashcards/${deck.id}/practice${tagQuery(tag)}`}
                aria-label={`Practice ${tag} (${keys.length === 1 ? '1 card' : `${keys.length} cards`})`}
              >
                <Tag aria-hidden="true" size={16} />
                {tag}
                <span className="progress-tags__count">({keys.length === 1 ? '1 card' : `${keys.length} cards`})</span>
              </ButtonLink>
              {due > 0 && (
                <ButtonLink look="quiet" to={`/flashcards/${deck.id}/review${tagQuery(tag)}`} aria-label={`Review due (${due}) tagged ${tag}`}>
                  <CalendarClock aria-hidden="true" size={16} />
                  Review due ({due})
                </ButtonLink>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/** Leeches (forgotten LEECH_LAPSES times) and suspended cards, each with Suspend or Unsuspend. */
function Trouble({
  deck,
  reviews,
  error,
  onSuspend,
}: {
  deck: Deck;
  reviews: ReviewRecord;
  error: string | null;
  onSuspend: (cardId: string, suspended: boolean) => void;
}) {
  const listed = useMemo(() => troubleCards(deck, reviews), [deck, reviews]);
  return (
    <section className="card progress-trouble" aria-labelledby="progress-trouble-title">
      <h2 id="progress-trouble-title" className="progress-page__heading">
        Leeches and suspended cards
      </h2>
      <p className="hint">
        A card forgotten {LEECH_LAPSES} times is a leech: it takes much time for little gain. Suspend it to leave it out of practice and the due counts until
        you rewrite it or bring it back.
      </p>
      {error && (
        <p className="alert" role="alert">
          {error}
        </p>
      )}
      {listed.length === 0 ? (
        <p>No leeches and no suspended cards.</p>
      ) : (
        <ul className="progress-trouble__list">
          {listed.map(({ card, lapses, leech }) => {
            const [item] = practiceItems({ cards: [{ ...card, suspended: false }], bidirectional: false });
            const front = item ? faces(item).prompt : card.front;
            return (
              <li key={card.id} className="progress-trouble__item">
                <span className="progress-trouble__front">{front}</span>
                <span className="progress-trouble__state">
                  {leech && <span className="pill progress-trouble__leech">Leech</span>}
                  {card.suspended && <span className="pill">Suspended</span>}
                  <span className="hint">Forgotten {lapses === 1 ? 'once' : `${lapses} times`}</span>
                </span>
                <button
                  type="button"
                  className="button"
                  onClick={() => onSuspend(card.id, !card.suspended)}
                  aria-label={`${card.suspended ? 'Unsuspend' : 'Suspend'} ${front}`}
                >
                  {card.suspended ? <Play aria-hidden="true" size={16} /> : <Pause aria-hidden="true" size={16} />}
                  {card.suspended ? 'Unsuspend' : 'Suspend'}
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

function Heatmap({ days: cells, total }: { days: readonly HeatmapDay[]; total: number }) {
  const max = Math.max(0, ...cells.map((cell) => cell.count));
  const inView = cells.reduce((sum, cell) => sum + cell.count, 0);
  const format = (day: number) => new Date(day).toLocaleDateString(undefined, { weekday: 'short', day: 'numeric', month: 'short' });
  return (
    <figure className="heatmap">
      <figcaption>
        Reviews per day, last {HEATMAP_WEEKS} weeks: {inView} ({total} in all)
      </figcaption>
      <div className="heatmap__grid" role="img" aria-label={`${inView} reviews in the last ${HEATMAP_WEEKS} weeks; the busiest day had ${max}.`}>
        {cells.map((cell) => (
          <span
            key={cell.day}
            className={`heatmap__day heatmap__day--${cell.future ? 'future' : String(heatLevel(cell.count, max))}`}
            title={cell.future ? undefined : `${format(cell.day)}: ${cell.count === 1 ? '1 review' : `${cell.count} reviews`}`}
          />
        ))}
      </div>
      <div className="heatmap__legend" aria-hidden="true">
        Less
        {[0, 1, 2, 3, 4].map((level) => (
          <span key={level} className={`heatmap__day heatmap__day--${level}`} />
        ))}
        More
      </div>
    </figure>
  );
}

function NewPerDay({ value, onSave }: { value: number; onSave: (value: number) => string | null }) {
  const [draft, setDraft] = useState(value);
  const [refused, setRefused] = useState(false);
  const [message, setMessage] = useState<{ error: boolean; text: string } | null>(null);
  return (
    <form
      className="card new-per-day"
      onSubmit={(event) => {
        event.preventDefault();
        if (refused) return;
        const error = onSave(draft);
        setMessage(error ? { error: true, text: error } : { error: false, text: `Saved: up to ${draft} new cards a day.` });
      }}
    >
      <NumberField
        label="New cards per day"
        hint="How many never-practiced cards “Review due” adds each day. Practice always takes every card."
        min={0}
        max={MAX_NEW_PER_DAY}
        required
        value={draft}
        onChange={(entry) => {
          setRefused(!entry.ok);
          if (entry.ok && entry.value !== undefined) setDraft(entry.value);
          setMessage(null);
        }}
      >
        <button type="submit" className="button" disabled={refused || draft === value}>
          Save
        </button>
      </NumberField>
      <p role="status" className={message?.error ? 'alert' : 'hint'}>
        {message?.text}
      </p>
    </form>
  );
}

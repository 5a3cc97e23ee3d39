// The completion screen, 'Practice complete' (SPEC.md 2): the counts, the ways on (led by
// 'Practice unknown again' when there were unknowns), when the deck is next due, and 'Review
// cards', which the spec leaves open: a list of this round's cards, the unknown first.
import './CompletionScreen.css';
import { useEffect, useRef, useState } from 'react';
import { ArrowLeft, Check, ListChecks, Pencil, Repeat, RotateCcw, X } from 'lucide-react';
import { ButtonLink } from '../lib/ButtonLink';
import { langLabel, type Deck } from './deck';
import { faces, reviewList, type PracticeState, type Summary } from './practice';

interface Props {
  deck: Deck;
  state: PracticeState;
  summary: Summary;
  /** When the deck is next due, in words. */
  nextDue: string;
  onRestart: () => void;
  onPracticeUnknown: () => void;
}

export function CompletionScreen({ deck, state, summary, nextDue, onRestart, onPracticeUnknown }: Props) {
  const heading = useRef<HTMLHeadingElement>(null);
  const [reviewing, setReviewing] = useState(false);
  const source = langLabel(deck.sourceLang);
  const target = langLabel(deck.targetLang);

  useEffect(() => {
    heading.current?.focus();
  }, []);

  return (
    <div className="card completion">
      <h2 ref={heading} tabIndex={-1}>
        Practice complete
      </h2>
      <dl className="completion__stats">
        <div className="completion__stat completion__stat--known">
          <dt>Knew it</dt>
          <dd>{summary.known}</dd>
        </div>
        <div className="completion__stat completion__stat--unknown">
          <dt>Didn’t know</dt>
          <dd>{summary.unknown}</dd>
        </div>
        <div className="completion__stat">
          <dt>Total</dt>
          <dd>{summary.total}</dd>
        </div>
      </dl>
      <p className="completion__next-due">{nextDue}</p>
      <div className="completion__actions">
        <div className="completion__primary">
          {summary.unknown > 0 && (
            <button type="button" className="button button--primary" onClick={onPracticeUnknown}>
              <Repeat aria-hidden="true" size={16} />
              Practice unknown again
            </button>
          )}
          <button type="button" className={summary.unknown > 0 ? 'button' : 'button button--primary'} onClick={onRestart}>
            <RotateCcw aria-hidden="true" size={16} />
            Restart
          </button>
        </div>
        <div className="completion__secondary">
          <ButtonLink look="quiet" to={`/flashcards/${deck.id}/edit`}>
            <Pencil aria-hidden="true" size={16} />
            Edit deck
          </ButtonLink>
          <ButtonLink look="quiet" to="/flashcards">
            <ArrowLeft aria-hidden="true" size={16} />
            Back to decks
          </ButtonLink>
          <button
            type="button"
            className="button button--quiet"
            aria-expanded={reviewing}
            aria-controls="review-list"
            onClick={() => setReviewing((open) => !open)}
          >
            <ListChecks aria-hidden="true" size={16} />
            Review cards
          </button>
        </div>
      </div>
      {reviewing && (
        <table id="review-list" className="review">
          <caption className="visually-hidden">Cards of this round, the unknown first</caption>
          <thead>
            <tr>
              <th scope="col">Front</th>
              <th scope="col">Back</th>
              <th scope="col">Result</th>
            </tr>
          </thead>
          <tbody>
            {reviewList(state).map(({ item, known }) => {
              const { prompt, answer } = faces(item);
              return (
                <tr key={item.key} className={known ? 'review__row--known' : 'review__row--unknown'}>
                  <td>
                    {prompt}
                    {deck.bidirectional && <span className="pill review__direction">{item.reverse ? `${target}→${source}` : `${source}→${target}`}</span>}
                  </td>
                  <td>{answer}</td>
                  <td className="review__result">
                    {known ? <Check aria-hidden="true" size={16} /> : <X aria-hidden="true" size={16} />}
                    {known ? 'Knew it' : 'Didn’t know'}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}

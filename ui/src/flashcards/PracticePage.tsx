// The practice session (SPEC.md 2 and 4): a shuffled stack of flip cards marked known or not by
// buttons, arrow keys or a swipe, with Undo, a progress bar, and the completion screen with its
// review list. All rules live in practice.ts; this screen wires input and animation to it.
import { useEffect, useMemo, useReducer, useRef } from 'react';
import { Link, Navigate, useParams } from 'react-router';
import { Check, Pencil, Undo2, X } from 'lucide-react';
import { useDocumentTitle } from '../lib/useDocumentTitle';
import { displayName, langLabel, type Deck } from './deck';
import {
  canMark,
  canUndo,
  createSession,
  isComplete,
  itemAt,
  practiceItems,
  practiceReducer,
  progress,
  summary,
  SWIPE_MS,
  type PracticeItem,
  type PracticeState,
} from './practice';
import { CompletionScreen } from './CompletionScreen';
import { FlipCard, type FlipCardHandle } from './FlipCard';
import { SpeakButton, useVoices } from './SpeakButton';
import { deckStore } from './storage';

export function PracticePage() {
  const { id = '' } = useParams();
  // Read once: a missing or unreadable deck sends the visitor back to the list (SPEC.md 8).
  const deck = useMemo(() => deckStore.readDeck(id), [id]);
  if (!deck) return <Navigate to="/flashcards" replace />;
  return <PracticeSession key={id} deck={deck} />;
}

const isTextField = (target: EventTarget | null) =>
  target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));

function PracticeSession({ deck }: { deck: Deck }) {
  const name = displayName(deck.name);
  const source = langLabel(deck.sourceLang);
  const target = langLabel(deck.targetLang);
  useDocumentTitle(`Practice · ${name}`);

  const [state, dispatch] = useReducer(practiceReducer, deck, (d) => createSession(practiceItems(d), Math.random));
  const card = useRef<FlipCardHandle>(null);
  const voices = useVoices();
  const done = isComplete(state);
  const empty = state.items.length === 0;

  // The swipe-out runs for SWIPE_MS, then the mark is recorded and the next card shows.
  useEffect(() => {
    if (state.animating === null) return;
    const handle = window.setTimeout(() => dispatch({ type: 'swipeDone' }), SWIPE_MS);
    return () => window.clearTimeout(handle);
  }, [state.animating]);

  // Keys dispatch plain actions; the reducer ignores whatever the current state does not allow.
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey || isTextField(event.target)) return;
      if (event.key === 'Backspace') {
        event.preventDefault();
        dispatch({ type: 'undo' });
        return;
      }
      // On the completion screen Space and the arrows keep their usual meaning for its buttons.
      if (done) return;
      switch (event.key) {
        case ' ':
          // Space flips wherever focus is; keep it from also pressing a focused button or scrolling.
          event.preventDefault();
          if (!event.repeat) dispatch({ type: 'flip' });
          break;
        case 'ArrowLeft':
          event.preventDefault();
          dispatch({ type: 'mark', mark: 'unknown' });
          break;
        case 'ArrowRight':
          event.preventDefault();
          dispatch({ type: 'mark', mark: 'known' });
          break;
      }
    };
    const onKeyUp = (event: KeyboardEvent) => {
      if (event.key === ' ' && !done && !isTextField(event.target)) event.preventDefault();
    };
    window.addEventListener('keydown', onKeyDown);
    window.addEventListener('keyup', onKeyUp);
    return () => {
      window.removeEventListener('keydown', onKeyDown);
      window.removeEventListener('keyup', onKeyUp);
    };
  }, [done]);

  // Keep focus on the card as cards change, unless the visitor put it somewhere else on purpose.
  useEffect(() => {
    if (done) return;
    const active = document.activeElement;
    if (!active || active === document.body || active.closest('.practice-stack, .practice-actions')) {
      card.current?.focus();
    }
  }, [state.position, done]);

  const current = itemAt(state, state.position);
  const announcement = announce(state, current, source, target);
  const next = itemAt(state, state.position + 1);
  const total = state.order.length;
  const percent = Math.round(progress(state) * 100);
  const marking = canMark(state);

  return (
    <section className="page practice" aria-labelledby="practice-title">
      <div className="toolbar">
        <div className="toolbar__title practice__title">
          <h1 id="practice-title">{name}</h1>
          <span className="pill pill--accent">
            {source} → {target}
          </span>
        </div>
        <Link className="button button--quiet" to={`/flashcards/${deck.id}/edit`}>
          <Pencil aria-hidden="true" size={16} />
          Edit deck
        </Link>
        <Link className="button button--quiet" to="/flashcards">
          All decks
        </Link>
      </div>

      <div className="practice__progress">
        <div
          className="progress"
          role="progressbar"
          aria-label="Progress"
          aria-valuemin={0}
          aria-valuemax={total}
          aria-valuenow={Math.min(state.position, total)}
          aria-valuetext={`${Math.min(state.position, total)} of ${total} cards`}
        >
          <div className="progress__bar" style={{ width: `${percent}%` }} />
        </div>
        <span className="count">
          {Math.min(state.position, total)} / {total}
        </span>
      </div>

      {empty ? (
        <div className="card page empty-state">
          <h2>Nothing to practise yet</h2>
          <p>This deck has no cards with both a front and a back.</p>
          <Link className="button button--primary" to={`/flashcards/${deck.id}/edit`}>
            Edit deck
          </Link>
        </div>
      ) : done ? (
        <CompletionScreen
          deck={deck}
          state={state}
          summary={summary(state)}
          onRestart={() => dispatch({ type: 'restart', random: Math.random })}
          onPracticeUnknown={() => dispatch({ type: 'practiceUnknown', random: Math.random })}
        />
      ) : (
        <>
          <div className="practice-stack">
            {next && (
              <div className="flipcard flipcard--preview" aria-hidden="true" key={`preview-${next.key}`}>
                <div className="flipcard__face">
                  <span className="flipcard__lang">{next.reverse ? target : source}</span>
                  <span className="flipcard__text">{next.reverse ? next.card.back : next.card.front}</span>
                </div>
              </div>
            )}
            {current && (
              <FlipCard
                ref={card}
                key={current.key}
                item={current}
                flipped={state.flipped}
                leaving={state.animating}
                sourceLabel={source}
                targetLabel={target}
                canSwipe={marking}
                onFlip={() => dispatch({ type: 'flip' })}
                onSwipe={(mark) => dispatch({ type: 'mark', mark })}
              />
            )}
            {current && state.animating === null && (
              // Outside the card's button (a button cannot hold one); it speaks the face showing.
              <SpeakButton
                key={`${current.key}-${String(state.flipped)}`}
                voices={voices}
                {...(state.flipped !== current.reverse
                  ? { text: current.card.back, language: deck.targetLang }
                  : { text: current.card.front, language: deck.sourceLang })}
              />
            )}
          </div>
          <div className="practice-actions">
            <button type="button" className="button practice-actions__unknown" disabled={!marking} onClick={() => dispatch({ type: 'mark', mark: 'unknown' })} aria-keyshortcuts="ArrowLeft">
              <X aria-hidden="true" size={18} />
              Didn’t know
            </button>
            <button type="button" className="button practice-actions__known" disabled={!marking} onClick={() => dispatch({ type: 'mark', mark: 'known' })} aria-keyshortcuts="ArrowRight">
              <Check aria-hidden="true" size={18} />
              Knew it
            </button>
          </div>
          <div className="practice__footer">
            <p className="hint">Click card or press Space to flip • ←/→ to mark</p>
            <button
              type="button"
              className="button button--quiet"
              disabled={!canUndo(state)}
              onClick={() => dispatch({ type: 'undo' })}
              aria-keyshortcuts="Backspace"
              title="Undo the last mark (Backspace)"
            >
              <Undo2 aria-hidden="true" size={16} />
              Undo
            </button>
          </div>
        </>
      )}
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
    </section>
  );
}

/** What the live region says: the face now showing, or the mark being recorded. */
function announce(state: PracticeState, item: PracticeItem | undefined, source: string, target: string): string {
  if (!item) return '';
  if (state.animating !== null) return state.animating === 'known' ? 'Marked: knew it' : 'Marked: didn’t know';
  // Reverse items ask the target side, so the face showing is the target one when exactly one holds.
  const showsTarget = state.flipped !== item.reverse;
  const text = showsTarget ? item.card.back : item.card.front;
  return `${state.flipped ? 'Back' : 'Front'}, ${showsTarget ? target : source}: ${text}`;
}

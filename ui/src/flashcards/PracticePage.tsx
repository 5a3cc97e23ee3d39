// The practice session (SPEC.md 2 and 4): a shuffled stack of flip cards marked known or not by
// buttons, arrow keys or a swipe, with Undo, a progress bar, and the completion screen with its
// review list. Beyond the spec: every mark is logged and schedules the card (srs/), "Review due"
// practises only the due cards, an unfinished session comes back after a reload, and the answer
// can be typed. All rules live in practice.ts and srs/; this screen wires input and animation.
import './PracticePage.css';
import { useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState } from 'react';
import { Link, Navigate, useParams, useSearchParams } from 'react-router';
import { ArrowLeft, Check, Pencil, RotateCcw, Undo2, X } from 'lucide-react';
import { ButtonLink } from '../lib/ButtonLink';
import { useDocumentTitle } from '../lib/useDocumentTitle';
import { displayName, langLabel, type Deck } from './deck';
import {
  canMark,
  canUndo,
  createSession,
  faces,
  isComplete,
  itemAt,
  practiceItems,
  practiceReducer,
  progress,
  summary,
  SWIPE_MS,
  type PracticeAction,
  type PracticeItem,
  type PracticeState,
} from './practice';
import { CompletionScreen } from './CompletionScreen';
import { FlipCard, type FlipCardHandle } from './FlipCard';
import { RecordCompare } from './media/RecordCompare';
import { CardSounds } from './media/CardMedia';
import { faceMedia, hasSound } from './media/sides';
import { SpeakButton, useVoices } from './SpeakButton';
import { deckStore, type PracticeOptions } from './storage';
import { tagQuery } from './tags';
import { TypeAnswer } from './TypeAnswer';
import { deckKeys, describeNextDue, nextDue, reviewDueKeys } from './srs/due';
import { recordMark, undoMark, type ReviewRecord } from './srs/reviewLog';
import { restoreSession, sessionToSave, type SessionMode } from './srs/session';

/**
 * The spec's Practice (every card, mode 'all') or "Review due" (the due cards, mode 'due'); with
 * `?tag=` in the address, only the cards with that tag.
 */
export function PracticePage({ mode = 'all' }: { mode?: SessionMode }) {
  const { id = '' } = useParams();
  const [params] = useSearchParams();
  const tag = params.get('tag')?.trim() ?? '';
  // Read once: a missing or unreadable deck sends the visitor back to the list (SPEC.md 8).
  const deck = useMemo(() => deckStore.readDeck(id), [id]);
  if (!deck) return <Navigate to="/flashcards" replace />;
  return <PracticeSession key={`${id}-${mode}-${tag}`} deck={deck} mode={mode} tag={tag} />;
}

/** A new session: every card for 'all', the due ones (new cards within today's cap) for 'due'. */
function freshSession(deck: Deck, mode: SessionMode, reviews: ReviewRecord, now: number, tag: string): PracticeState {
  const items = practiceItems(deck, tag || undefined);
  if (mode === 'all') return createSession(items, Math.random);
  const byKey = new Map(items.map((item) => [item.key, item]));
  const due = reviewDueKeys(deckKeys(deck, tag || undefined), reviews, now).flatMap((key) => byKey.get(key) ?? []);
  return createSession(due, Math.random);
}

interface Start {
  state: PracticeState;
  /** True when an unfinished session was picked up where it was left. */
  restored: boolean;
}

function startSession(deck: Deck, mode: SessionMode, reviews: ReviewRecord, tag: string): Start {
  const saved = deckStore.readSession(deck.id);
  const restored = saved && restoreSession(saved, mode, practiceItems(deck, tag || undefined), tag);
  if (restored && restored.position > 0) return { state: restored, restored: true };
  return { state: freshSession(deck, mode, reviews, Date.now(), tag), restored: false };
}

type SessionAction = PracticeAction | { type: 'replace'; state: PracticeState };

function sessionReducer(state: PracticeState, action: SessionAction): PracticeState {
  return action.type === 'replace' ? action.state : practiceReducer(state, action);
}

const isTextField = (target: EventTarget | null) =>
  target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));

function PracticeSession({ deck, mode, tag }: { deck: Deck; mode: SessionMode; tag: string }) {
  const name = displayName(deck.name);
  const source = langLabel(deck.sourceLang);
  const target = langLabel(deck.targetLang);
  useDocumentTitle(`${mode === 'due' ? 'Review due' : 'Practice'} · ${name}`);

  const [start] = useState(() => {
    const reviews = deckStore.readReviews(deck.id);
    return { reviews, ...startSession(deck, mode, reviews, tag) };
  });
  const [state, dispatch] = useReducer(sessionReducer, start.state);
  const [restored, setRestored] = useState(start.restored);
  // The log as rendered (next due), and the same in a ref for the timers and key handlers.
  const [reviews, setReviews] = useState(start.reviews);
  const reviewsRef = useRef(start.reviews);
  const [storageError, setStorageError] = useState<string | null>(null);
  /** The position of a card swiped before it was flipped: the touch hint says what happened there. */
  const [earlySwipeAt, setEarlySwipeAt] = useState<number | null>(null);
  const section = useRef<HTMLElement>(null);
  // The card keeps the focus after a tap so the keys keep working, but a ring shows only for the
  // keyboard: the last kind of input is kept on the section for the CSS.
  useEffect(() => {
    const mark = (input: 'pointer' | 'keyboard') => () => {
      if (section.current) section.current.dataset.input = input;
    };
    const onPointer = mark('pointer');
    const onKey = mark('keyboard');
    document.addEventListener('pointerdown', onPointer, true);
    document.addEventListener('keydown', onKey, true);
    return () => {
      document.removeEventListener('pointerdown', onPointer, true);
      document.removeEventListener('keydown', onKey, true);
    };
  }, []);
  // The time "next due" is told from: when the page opened, then the time of the latest mark.
  const [now, setNow] = useState(() => Date.now());
  const [options, setOptions] = useState<PracticeOptions>(() => deckStore.readPracticeOptions());
  // The typed answer's verdict, for the card at one position (undo brings it back unchecked).
  const [check, setCheck] = useState<{ key: string; position: number; correct: boolean } | null>(null);
  const stateRef = useRef(state);
  const card = useRef<FlipCardHandle>(null);
  const answerInput = useRef<HTMLInputElement>(null);
  const knownButton = useRef<HTMLButtonElement>(null);
  const unknownButton = useRef<HTMLButtonElement>(null);
  const voices = useVoices();
  const done = isComplete(state);
  const empty = state.items.length === 0;

  // Kept before the screen is painted, so a key pressed the moment a card shows sees its state.
  useLayoutEffect(() => {
    stateRef.current = state;
  });

  const saveReviews = (next: ReviewRecord) => {
    const result = deckStore.writeReviews(deck.id, next);
    if (!result.ok) {
      // The stored log keeps every earlier mark; this one is kept for the rest of the visit only.
      setStorageError(result.error);
    } else setStorageError(null);
    reviewsRef.current = next;
    setReviews(next);
    setNow(Date.now());
  };

  // The swipe-out runs for SWIPE_MS, then the mark is logged and recorded and the next card shows.
  useEffect(() => {
    const mark = state.animating;
    const key = state.order[state.position];
    if (mark === null || key === undefined) return;
    const handle = window.setTimeout(() => {
      saveReviews(recordMark(reviewsRef.current, key, mark === 'known' ? 'good' : 'again', Date.now()));
      dispatch({ type: 'swipeDone' });
    }, SWIPE_MS);
    return () => window.clearTimeout(handle);
    // Runs once per swipe: the key and mark belong to the swipe that just started.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [state.animating]);

  // Undo takes the mark back from the schedule too.
  const undo = () => {
    const current = stateRef.current;
    if (!canUndo(current)) return;
    const key = current.order[current.position - 1];
    if (key !== undefined) saveReviews(undoMark(reviewsRef.current, key));
    dispatch({ type: 'undo' });
  };

  // The session is kept as it goes, so a reload or a visit elsewhere picks it up again.
  useEffect(() => {
    // Before the first mark there is nothing to come back to (and a 5,000-card order to write).
    const saved = sessionToSave(state, mode, tag);
    if (saved && saved.position > 0) deckStore.writeSession(deck.id, saved);
    else deckStore.clearSession(deck.id);
    // Only these parts are stored: flips and swipes in flight need no write.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [state.order, state.position, state.known, state.unknown, state.items, mode, deck.id, tag]);

  const startOver = () => {
    deckStore.clearSession(deck.id);
    setRestored(false);
    dispatch({ type: 'replace', state: freshSession(deck, mode, reviewsRef.current, Date.now(), tag) });
  };

  const setOption = (change: Partial<PracticeOptions>) => {
    const next = { ...options, ...change };
    setOptions(next);
    deckStore.writePracticeOptions(next);
  };

  // Keys dispatch plain actions; the reducer ignores whatever the current state does not allow.
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey || isTextField(event.target)) return;
      if (event.key === 'Backspace') {
        event.preventDefault();
        undo();
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
    // undo reads the latest state and log through refs.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [done]);

  // Keep focus on the card (or the answer field when typing) as cards change, unless the visitor
  // put it somewhere else on purpose.
  useEffect(() => {
    if (done) return;
    const active = document.activeElement;
    if (!active || active === document.body || active.closest('.practice-stack, .practice-actions, .type-answer, .practice__options')) {
      if (options.typing && answerInput.current) answerInput.current.focus({ preventScroll: true });
      else card.current?.focus();
    }
  }, [state.position, state.order, done, options.typing]);

  const current = itemAt(state, state.position);
  const announcement = announce(state, current, source, target);
  const next = itemAt(state, state.position + 1);
  const total = state.order.length;
  const percent = Math.round(progress(state) * 100);
  const marking = canMark(state);
  const suggestion = current && check?.key === current.key && check.position === state.position ? (check.correct ? 'known' : 'unknown') : null;
  const keys = useMemo(() => deckKeys(deck, tag || undefined), [deck, tag]);
  const tagged = tag === '' ? '' : tagQuery(tag);
  const swipedEarly = earlySwipeAt === state.position;

  return (
    <section ref={section} className="page practice" aria-labelledby="practice-title">
      {/* Links first, on a line of their own as in the calendar editor: a long deck name no longer
          decides where they wrap. */}
      <nav className="practice__links" aria-label="Deck">
        <Link className="back-link" to="/flashcards">
          <ArrowLeft aria-hidden="true" size={16} />
          All decks
        </Link>
        <ButtonLink look="quiet" to={`/flashcards/${deck.id}/edit`}>
          <Pencil aria-hidden="true" size={16} />
          Edit deck
        </ButtonLink>
      </nav>
      <div className="toolbar__title practice__title">
        <h1 id="practice-title">{name}</h1>
        <span className="pill pill--accent">
          {source} → {target}
        </span>
        {mode === 'due' && <span className="pill">Review due</span>}
        {tag !== '' && <span className="pill">Tag: {tag}</span>}
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

      {storageError && (
        <p className="alert" role="alert">
          {storageError}
        </p>
      )}
      {restored && !done && !empty && (
        <div className="notice practice__restored">
          <p>
            Continuing your unfinished session: {state.position} of {total} cards marked.
          </p>
          <button type="button" className="button" onClick={startOver}>
            <RotateCcw aria-hidden="true" size={16} />
            Start over
          </button>
        </div>
      )}

      {empty && mode === 'due' && keys.length > 0 ? (
        <div className="card page empty-state">
          <h2>Nothing is due</h2>
          <p>{describeNextDue(nextDue(keys, reviews, now), now)}</p>
          <ButtonLink look="primary" to={`/flashcards/${deck.id}/practice${tagged}`}>
            {tag === '' ? 'Practice all cards' : `Practice all cards tagged ${tag}`}
          </ButtonLink>
        </div>
      ) : empty ? (
        <div className="card page empty-state">
          <h2>Nothing to practice yet</h2>
          <p>
            {tag === ''
              ? 'This deck has no cards with both a front and a back that are not suspended.'
              : `No card of this deck with both a front and a back is tagged “${tag}” (suspended cards are left out).`}
          </p>
          <ButtonLink look="primary" to={`/flashcards/${deck.id}/edit`}>
            Edit deck
          </ButtonLink>
        </div>
      ) : done ? (
        <CompletionScreen
          deck={deck}
          state={state}
          summary={summary(state)}
          nextDue={describeNextDue(nextDue(keys, reviews, now), now)}
          onRestart={() => {
            setRestored(false);
            dispatch({ type: 'restart', random: Math.random });
          }}
          onPracticeUnknown={() => dispatch({ type: 'practiceUnknown', random: Math.random })}
        />
      ) : (
        <>
          <div className="practice-stack">
            {next && (
              <div className="flipcard flipcard--preview" aria-hidden="true" key={`preview-${next.key}`}>
                <div className="flipcard__face">
                  <span className="flipcard__lang">{next.reverse ? target : source}</span>
                  <span className="flipcard__text">{faces(next).prompt}</span>
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
                onEarlySwipe={() => {
                  if (!state.flipped && state.animating === null) dispatch({ type: 'flip' });
                  setEarlySwipeAt(state.position);
                }}
              />
            )}
            {current && state.animating === null && (
              // Outside the card's button (a button cannot hold one); it speaks the face showing.
              <SpeakButton
                key={`${current.key}-${String(state.flipped)}`}
                voices={voices}
                {...(current.cloze !== undefined
                  ? { text: state.flipped ? faces(current).answer : faces(current).prompt, language: deck.sourceLang }
                  : state.flipped !== current.reverse
                    ? { text: current.card.back, language: deck.targetLang }
                    : { text: current.card.front, language: deck.sourceLang })}
              />
            )}
          </div>
          {current && hasSound(current.card.media) && (
            // The face's sounds, below the card (a button cannot hold buttons); the deck's autoplay
            // plays the front's sound when the card comes up.
            <div className="practice-sounds">
              <CardSounds
                key={`${current.key}-${String(state.flipped)}`}
                refs={faceMedia(current.card.media, current, state.flipped ? 'answer' : 'prompt')}
                autoplay={deck.autoplay && !state.flipped}
              />
            </div>
          )}
          {current && (
            <RecordCompare
              key={current.key}
              media={current.card.media}
              // The field decides the side: the front's on the side showing the front text, the others with the back.
              showing={(field) =>
                field === 'front'
                  ? current.cloze !== undefined || state.flipped === current.reverse
                  : state.flipped !== (current.reverse && current.cloze === undefined)
              }
            />
          )}
          {options.typing && current && (
            <TypeAnswer
              key={`${current.key}-${state.position}`}
              ref={answerInput}
              item={current}
              language={current.reverse || current.cloze !== undefined ? source : target}
              strict={options.strict}
              onChecked={(correct) => {
                setCheck({ key: current.key, position: state.position, correct });
                if (!state.flipped) dispatch({ type: 'flip' });
                // The suggestion gets the focus: Enter takes it, the arrows still choose.
                window.requestAnimationFrame(() => (correct ? knownButton : unknownButton).current?.focus());
              }}
            />
          )}
          <div className="practice-actions">
            <button
              ref={unknownButton}
              type="button"
              className={`button practice-actions__unknown${suggestion === 'unknown' ? ' is-suggested' : ''}`}
              disabled={!marking}
              onClick={() => dispatch({ type: 'mark', mark: 'unknown' })}
              aria-keyshortcuts="ArrowLeft"
              aria-describedby={suggestion === 'unknown' ? 'grade-suggestion' : undefined}
            >
              <X aria-hidden="true" size={18} />
              Didn’t know
            </button>
            <button
              ref={knownButton}
              type="button"
              className={`button practice-actions__known${suggestion === 'known' ? ' is-suggested' : ''}`}
              disabled={!marking}
              onClick={() => dispatch({ type: 'mark', mark: 'known' })}
              aria-keyshortcuts="ArrowRight"
              aria-describedby={suggestion === 'known' ? 'grade-suggestion' : undefined}
            >
              <Check aria-hidden="true" size={18} />
              Knew it
            </button>
          </div>
          {suggestion && (
            <p id="grade-suggestion" className="hint practice__suggestion">
              Suggested from your answer: {suggestion === 'known' ? 'Knew it' : 'Didn’t know'}. You choose.
            </p>
          )}
          <div className="practice__footer">
            <p className="hint">Click card or press Space to flip • ←/→ to mark</p>
            {/* Added for touch screens (shown by a pointer: coarse / any-hover: none query). */}
            <p className={swipedEarly ? 'hint practice__touch-hint is-shown' : 'hint practice__touch-hint'} aria-live="polite">
              {swipedEarly
                ? 'Flipped for you: now swipe right for Knew it, left for Didn’t know.'
                : 'On touch screens: tap the card to flip, then swipe right for Knew it, left for Didn’t know.'}
            </p>
            <button
              type="button"
              className="button button--quiet"
              disabled={!canUndo(state)}
              onClick={undo}
              aria-keyshortcuts="Backspace"
              title="Undo the last mark (Backspace)"
            >
              <Undo2 aria-hidden="true" size={16} />
              Undo
            </button>
          </div>
          <fieldset className="practice__options">
            <legend className="visually-hidden">Practice options</legend>
            <label className="switch">
              <input type="checkbox" role="switch" checked={options.typing} onChange={(event) => setOption({ typing: event.target.checked })} />
              <span className="switch__track" aria-hidden="true" />
              <span className="switch__text">Type the answer</span>
            </label>
            {options.typing && (
              <label className="switch">
                <input type="checkbox" role="switch" checked={options.strict} onChange={(event) => setOption({ strict: event.target.checked })} />
                <span className="switch__track" aria-hidden="true" />
                <span className="switch__text">
                  <span>Strict</span>
                  <span className="hint">Accents and capitals must match</span>
                </span>
              </label>
            )}
          </fieldset>
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
  // A cloze item shows its front's language on both faces.
  const showsTarget = item.cloze === undefined && state.flipped !== item.reverse;
  const { prompt, answer } = faces(item);
  const text = state.flipped ? answer : prompt;
  return `${state.flipped ? 'Back' : 'Front'}, ${showsTarget ? target : source}: ${text}`;
}

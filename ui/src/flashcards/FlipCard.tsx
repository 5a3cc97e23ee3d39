// The practice card: a button that flips on click, tap, Enter or Space, and on a touch screen (or
// with a mouse drag) follows the finger once flipped, marking known to the right and not known to
// the left when let go past a threshold. Drag positions go straight to CSS variables, not state, so
// following the finger never re-renders. Each face shows its pictures (media/CardMedia.tsx); the
// sounds' controls are buttons, so PracticePage puts them outside this one.
import './FlipCard.css';
import { useImperativeHandle, useRef, type PointerEvent, type Ref } from 'react';
import { Check, X } from 'lucide-react';
import { ClozeText } from './ClozeText';
import { CardPictures } from './media/CardMedia';
import { faceMedia } from './media/sides';
import { faces, type Mark, type PracticeItem } from './practice';

export interface FlipCardHandle {
  focus(): void;
}

interface Props {
  item: PracticeItem;
  flipped: boolean;
  /** The swipe-out in progress, if any. */
  leaving: Mark | null;
  sourceLabel: string;
  targetLabel: string;
  /** Swiping marks, so it is allowed exactly when marking is. */
  canSwipe: boolean;
  onFlip: () => void;
  onSwipe: (mark: Mark) => void;
  /** A swipe that came before the card could be marked: the screen answers it rather than ignore it. */
  onEarlySwipe: () => void;
  ref: Ref<FlipCardHandle>;
}

/** Movement below this many pixels is a tap, not a drag. */
const DRAG_SLOP = 8;

interface Drag {
  pointerId: number;
  x: number;
  y: number;
  dx: number;
  active: boolean;
  /** A sideways swipe while marking is not possible yet (card not flipped). */
  early: boolean;
}

export function FlipCard({ item, flipped, leaving, sourceLabel, targetLabel, canSwipe, onFlip, onSwipe, onEarlySwipe, ref }: Props) {
  const button = useRef<HTMLButtonElement>(null);
  const drag = useRef<Drag | null>(null);
  const suppressClick = useRef(false);

  useImperativeHandle(ref, () => ({ focus: () => button.current?.focus({ preventScroll: true }) }), []);

  const { prompt, answer } = faces(item);
  const promptLang = item.reverse ? targetLabel : sourceLabel;
  // A cloze card asks and answers in its front's language.
  const answerLang = item.reverse || item.cloze !== undefined ? sourceLabel : targetLabel;
  // The target-language word carries its pronunciation, gender and example: on the back normally,
  // on the front when the card is asked in reverse.
  const { pronunciation, gender, example } = item.card;
  // Screen readers hear the separators between the extras; sighted visitors see the layout.
  const sep = <span className="visually-hidden">, </span>;
  const extras = (
    <>
      {pronunciation.trim() !== '' && (
        <>
          {sep}
          <span className="flipcard__pronunciation">{pronunciation}</span>
        </>
      )}
      {example.trim() !== '' && (
        <>
          {sep}
          <span className="flipcard__example">“{example}”</span>
        </>
      )}
      {gender.trim() !== '' && (
        <>
          {sep}
          <span className="pill flipcard__gender">Gender: {gender}</span>
        </>
      )}
    </>
  );

  // During the swipe-out the state is already unflipped (SPEC.md 4); the leaving card keeps its face.
  // The button is named by the face shown ("Front, EN: cat. Press to flip."), its visible words and
  // a few hidden ones, not by an aria-label: its name always holds what is on screen (WCAG 2.5.3).
  // The face turned away is hidden from everyone once the flip passes halfway (flashcards.css).
  const showBack = flipped || leaving !== null;

  const setDrag = (dx: number) => {
    const el = button.current;
    if (!el) return;
    const threshold = swipeThreshold(el);
    el.style.setProperty('--drag-x', `${dx}px`);
    el.style.setProperty('--drag-rotate', `${dx / 20}deg`);
    el.style.setProperty('--known-opacity', String(Math.max(0, Math.min(1, dx / threshold))));
    el.style.setProperty('--unknown-opacity', String(Math.max(0, Math.min(1, -dx / threshold))));
  };

  const endDrag = (cancelled: boolean) => {
    const current = drag.current;
    drag.current = null;
    const el = button.current;
    if (current?.early && !cancelled) {
      // The click that follows the swipe must not flip the card a second time.
      suppressClick.current = true;
      onEarlySwipe();
      return;
    }
    if (!current?.active || !el) return;
    suppressClick.current = true;
    el.classList.remove('is-dragging');
    if (!cancelled && canSwipe && Math.abs(current.dx) >= swipeThreshold(el)) {
      onSwipe(current.dx > 0 ? 'known' : 'unknown');
    } else {
      setDrag(0);
    }
  };

  const onPointerDown = (event: PointerEvent<HTMLButtonElement>) => {
    if (!event.isPrimary || event.button !== 0) return;
    // A new gesture: a swipe on a touch screen is followed by no click, so what the last one set
    // to swallow its click must not swallow this one's (the first tap after a swipe was lost).
    suppressClick.current = false;
    drag.current = { pointerId: event.pointerId, x: event.clientX, y: event.clientY, dx: 0, active: false, early: false };
  };

  const onPointerMove = (event: PointerEvent<HTMLButtonElement>) => {
    const current = drag.current;
    const el = button.current;
    if (current?.pointerId !== event.pointerId || !el) return;
    const dx = event.clientX - current.x;
    if (!canSwipe) {
      // No marking before the card is flipped, but the swipe is noticed and answered on release.
      const dy = event.clientY - current.y;
      if (Math.abs(dx) >= 2 * DRAG_SLOP && Math.abs(dx) > Math.abs(dy)) current.early = true;
      return;
    }
    if (!current.active) {
      const dy = event.clientY - current.y;
      if (Math.abs(dx) < DRAG_SLOP || Math.abs(dx) < Math.abs(dy)) return;
      current.active = true;
      el.setPointerCapture(event.pointerId);
      el.classList.add('is-dragging');
    }
    current.dx = dx;
    setDrag(dx);
  };

  const leavingClass = leaving === 'known' ? ' is-leaving-right' : leaving === 'unknown' ? ' is-leaving-left' : '';

  return (
    <button
      ref={button}
      type="button"
      className={`flipcard flipcard--current${showBack ? ' is-flipped' : ''}${canSwipe ? ' can-swipe' : ''}${leavingClass}`}
      onClick={() => {
        if (suppressClick.current) {
          suppressClick.current = false;
          return;
        }
        onFlip();
      }}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={() => endDrag(false)}
      onPointerCancel={() => endDrag(true)}
    >
      <span className="flipcard__inner">
        <span className="flipcard__face flipcard__face--front" aria-hidden={showBack}>
          <span className="visually-hidden">Front, </span>
          <span className="flipcard__lang">{promptLang}</span>
          <span className="visually-hidden">: </span>
          <span className="flipcard__text">
            {item.cloze === undefined ? prompt : <ClozeText front={item.card.front} number={item.cloze} revealed={false} />}
          </span>
          <CardPictures refs={faceMedia(item.card.media, item, 'prompt')} />
          {item.reverse && extras}
          <span className="visually-hidden">. Press to flip.</span>
        </span>
        <span className="flipcard__face flipcard__face--back" aria-hidden={!showBack}>
          <span className="visually-hidden">Back, </span>
          <span className="flipcard__lang">{answerLang}</span>
          <span className="visually-hidden">: </span>
          <span className="flipcard__text">{item.cloze === undefined ? answer : <ClozeText front={item.card.front} number={item.cloze} revealed />}</span>
          <CardPictures refs={faceMedia(item.card.media, item, 'answer')} />
          {item.cloze !== undefined && item.card.back.trim() !== '' && (
            <>
              {sep}
              <span className="flipcard__extra">{item.card.back}</span>
            </>
          )}
          {!item.reverse && extras}
          <span className="visually-hidden">. Press to show the front.</span>
        </span>
      </span>
      <span className="flipcard__stamp flipcard__stamp--known" aria-hidden="true">
        <Check size={28} />
      </span>
      <span className="flipcard__stamp flipcard__stamp--unknown" aria-hidden="true">
        <X size={28} />
      </span>
    </button>
  );
}

function swipeThreshold(el: HTMLElement): number {
  return Math.max(60, Math.min(120, el.offsetWidth * 0.3));
}

// The editor's cards table (SPEC.md 2, "Deck editor"). Rows are memoised on their card, so typing
// re-renders one row; Enter moves to the next visible input, then to the next row's front, adding
// a row from the last field of the last row (the tags field, reached with Tab, is not on Enter's
// way). Focus follows rows as they move and disappear. A cloze card's front shows a preview.
import './CardTable.css';
import {
  memo,
  startTransition,
  useCallback,
  useEffect,
  useImperativeHandle,
  useMemo,
  useRef,
  useState,
  type Dispatch,
  type KeyboardEvent,
  type Ref,
} from 'react';
import { ArrowDown, ArrowUp, Trash2, X } from 'lucide-react';
import { clozeNumbers, clozeText } from './cloze';
import { emptyCard, type Card, type CardField } from './deck';
import { formatTags, parseTagInput } from './tags';
import type { EditorAction } from './editor';
import { newId } from './uuid';
import { CardMedia } from './media/CardMedia';

export interface Columns {
  gender: boolean;
  pronunciation: boolean;
  example: boolean;
}

/** The language labels of the front and back columns ('EN', 'FR'). */
interface Labels {
  source: string;
  target: string;
}

export interface CardTableHandle {
  /** Adds an empty row at the end and puts the cursor in its front field. */
  addRow(): void;
  /** Puts the cursor in the front field of card `id` once it is in the table. */
  focusCard(id: string): void;
}

type FocusTarget = 'front' | 'up' | 'down' | 'remove' | 'add';
interface FocusRequest {
  id: string | null;
  target: FocusTarget;
}

interface RowProps {
  card: Card;
  index: number;
  isLast: boolean;
  columns: Columns;
  labels: Labels;
  dispatch: Dispatch<EditorAction>;
  onMove: (id: string, delta: -1 | 1) => void;
  onRemove: (id: string) => void;
}

/**
 * The tags of a card as typed: the field keeps what is typed (a trailing space starts the next
 * tag) and the card gets the tags it holds; a change from elsewhere (undo, import) shows anew.
 */
function TagsField({ card, n, dispatch }: { card: Card; n: number; dispatch: Dispatch<EditorAction> }) {
  const [typed, setTyped] = useState(() => formatTags(card.tags));
  const parsed = parseTagInput(typed);
  const shown = parsed.length === card.tags.length && parsed.every((tag, i) => tag === card.tags[i]) ? typed : formatTags(card.tags);
  return (
    <div role="cell" className="card-row__cell card-row__cell--tags">
      <span className="card-row__caption" aria-hidden="true">
        Tags
      </span>
      <input
        className="input"
        data-field="tags"
        value={shown}
        placeholder="e.g. verbs"
        aria-label={`Card ${n} tags, separated by spaces`}
        autoComplete="off"
        autoCapitalize="off"
        spellCheck={false}
        onChange={(event) => {
          setTyped(event.target.value);
          dispatch({ type: 'setTags', id: card.id, tags: parseTagInput(event.target.value) });
        }}
      />
    </div>
  );
}

/** Under a cloze card's front: the practice cards it makes, each as it is asked. */
function ClozePreview({ front, id }: { front: string; id: string }) {
  const numbers = clozeNumbers(front);
  if (numbers.length === 0) return null;
  return (
    <ol id={id} className="card-row__cloze" aria-label="Cloze cards">
      {numbers.map((number) => (
        <li key={number}>
          <span className="card-row__cloze-number">c{number}</span> {clozeText(front, number, false)}
        </li>
      ))}
    </ol>
  );
}

/** The texts another device wrote into this card at the same time (sync kept them), until dismissed. */
function ConflictNote({ card, n, dispatch }: { card: Card; n: number; dispatch: Dispatch<EditorAction> }) {
  if (!card.conflict) return null;
  return (
    <div role="cell" className="card-row__conflict">
      <p className="card-row__conflict-text">
        <strong>Also written on another device at the same time:</strong> {card.conflict}
      </p>
      <button
        type="button"
        className="button button--quiet card-row__conflict-dismiss"
        aria-label={`Dismiss the note on card ${n}`}
        onClick={() => dispatch({ type: 'dismissConflict', id: card.id })}
      >
        <X aria-hidden="true" size={16} /> Dismiss
      </button>
    </div>
  );
}

const CardRow = memo(function CardRow({ card, index, isLast, columns, labels, dispatch, onMove, onRemove }: RowProps) {
  const n = index + 1;
  const previewId = `cloze-preview-${card.id}`;
  const field = (name: CardField, placeholder: string, label: string, caption: string, className = '') => (
    <div role="cell" className={`card-row__cell card-row__cell--${name}`}>
      {/* The column header's words over each field on phones, where the header row is hidden;
          the input's own label already says it to screen readers. */}
      <span className="card-row__caption" aria-hidden="true">
        {caption}
      </span>
      <input
        className={`input ${className}`}
        data-field={name}
        value={card[name]}
        placeholder={placeholder}
        aria-label={`Card ${n} ${label}`}
        autoComplete="off"
        spellCheck={name === 'example'}
        aria-describedby={name === 'front' && clozeNumbers(card.front).length > 0 ? previewId : undefined}
        onChange={(event) => dispatch({ type: 'updateCard', id: card.id, field: name, value: event.target.value })}
      />
      {name === 'front' && <ClozePreview front={card.front} id={previewId} />}
    </div>
  );
  return (
    <div role="row" className="card-row" data-card-id={card.id}>
      <span role="cell" className="card-row__number" aria-label={`Card ${n}`}>
        {n}
      </span>
      {field('front', 'Front of the card', 'front', `${labels.source} (Front)`)}
      {field('back', 'Back of the card', 'back', `${labels.target} (Back)`)}
      {columns.gender && field('gender', 'm/f/n', 'gender', 'Gender')}
      {columns.pronunciation && field('pronunciation', '/IPA/', 'pronunciation', 'Pronunciation')}
      {columns.example && field('example', 'Use the word in a sentence...', 'example', 'Example')}
      <TagsField card={card} n={n} dispatch={dispatch} />
      <div role="cell" className="card-row__actions">
        <button
          type="button"
          className="icon-button"
          data-action="up"
          aria-label={`Move card ${n} up`}
          title="Move up"
          disabled={index === 0}
          onClick={() => onMove(card.id, -1)}
        >
          <ArrowUp aria-hidden="true" size={16} />
        </button>
        <button
          type="button"
          className="icon-button"
          data-action="down"
          aria-label={`Move card ${n} down`}
          title="Move down"
          disabled={isLast}
          onClick={() => onMove(card.id, 1)}
        >
          <ArrowDown aria-hidden="true" size={16} />
        </button>
        <button
          type="button"
          className="icon-button icon-button--danger"
          data-action="remove"
          aria-label={`Remove card ${n}`}
          title="Remove card"
          onClick={() => onRemove(card.id)}
        >
          <Trash2 aria-hidden="true" size={16} />
        </button>
      </div>
      <ConflictNote card={card} n={n} dispatch={dispatch} />
      {card.media.length > 0 && (
        <div role="cell" className="card-row__media" aria-label={`Card ${n} pictures and sounds`}>
          <CardMedia refs={card.media} />
        </div>
      )}
    </div>
  );
});

/** Rows are grouped in blocks: a keystroke re-renders one block, and off-screen blocks skip layout. */
export const BLOCK_SIZE = 100;
/** Blocks mounted on the first render; the rest follow in the background, a few per frame. */
const FIRST_BLOCKS = 2;
const BLOCKS_PER_STEP = 5;

interface BlockProps extends Omit<RowProps, 'card' | 'index' | 'isLast'> {
  cards: readonly Card[];
  offset: number;
  lastIndex: number;
}

const CardBlock = memo(function CardBlock({ cards, offset, lastIndex, ...rest }: BlockProps) {
  return (
    <div role="presentation" className="card-block">
      {cards.map((card, i) => (
        <CardRow key={card.id} card={card} index={offset + i} isLast={offset + i === lastIndex} {...rest} />
      ))}
    </div>
  );
});

/** Splits cards into blocks, reusing the previous block arrays whose cards did not change. */
function toBlocks(cards: readonly Card[], previous: readonly (readonly Card[])[]): (readonly Card[])[] {
  const blocks: (readonly Card[])[] = [];
  for (let start = 0, b = 0; start < cards.length; start += BLOCK_SIZE, b += 1) {
    const end = Math.min(start + BLOCK_SIZE, cards.length);
    const old = previous[b];
    let same = old?.length === end - start;
    for (let i = start; same && i < end; i += 1) same = old?.[i - start] === cards[i];
    blocks.push(same && old ? old : cards.slice(start, end));
  }
  return blocks;
}

interface TableProps {
  cards: readonly Card[];
  columns: Columns;
  sourceLabel: string;
  targetLabel: string;
  dispatch: Dispatch<EditorAction>;
  /** Told before a card is removed, so the screen can offer Undo. */
  onRemoved?: (id: string) => void;
  ref: Ref<CardTableHandle>;
}

export function CardTable({ cards, columns, sourceLabel, targetLabel, dispatch, onRemoved, ref }: TableProps) {
  const table = useRef<HTMLDivElement>(null);
  const addButton = useRef<HTMLButtonElement>(null);
  const cardsRef = useRef(cards);
  const pendingFocus = useRef<FocusRequest | null>(null);
  const [blockCache, setBlockCache] = useState<{ cards: readonly Card[]; blocks: (readonly Card[])[] }>(() => ({
    cards,
    blocks: toBlocks(cards, []),
  }));
  let blocks = blockCache.blocks;
  if (blockCache.cards !== cards) {
    blocks = toBlocks(cards, blockCache.blocks);
    setBlockCache({ cards, blocks });
  }
  const [mounted, setMounted] = useState(FIRST_BLOCKS);
  // One object per language pair, so the memoised rows re-render only when a language changes.
  const labels = useMemo(() => ({ source: sourceLabel, target: targetLabel }), [sourceLabel, targetLabel]);

  // Large decks: mount the remaining blocks after the first paint, without blocking input.
  useEffect(() => {
    if (mounted >= blocks.length) return;
    const handle = window.setTimeout(() => startTransition(() => setMounted((n) => n + BLOCKS_PER_STEP)), 0);
    return () => window.clearTimeout(handle);
  }, [mounted, blocks.length]);

  useEffect(() => {
    cardsRef.current = cards;
    const request = pendingFocus.current;
    if (!request) return;
    if (request.id !== null && !table.current?.querySelector(`[data-card-id="${CSS.escape(request.id)}"]`)) {
      // The row is in a block not mounted yet: mount everything, then come back here.
      setMounted(Number.POSITIVE_INFINITY);
      return;
    }
    pendingFocus.current = null;
    if (request.target === 'add' || request.id === null) {
      addButton.current?.focus();
      return;
    }
    const row = table.current?.querySelector<HTMLElement>(`[data-card-id="${CSS.escape(request.id)}"]`);
    const selector = request.target === 'front' ? 'input[data-field="front"]' : `button[data-action="${request.target}"]`;
    let target = row?.querySelector<HTMLElement>(selector);
    // A row moved to either end has that move button disabled; its other move button takes focus.
    if (target instanceof HTMLButtonElement && target.disabled) {
      target = row?.querySelector<HTMLElement>(`button[data-action="${request.target === 'up' ? 'down' : 'up'}"]`);
    }
    target?.focus();
    target?.scrollIntoView({ block: 'nearest' });
  }, [cards, mounted]);

  const addRow = useCallback(() => {
    const card = emptyCard(newId());
    pendingFocus.current = { id: card.id, target: 'front' };
    dispatch({ type: 'addCard', card });
  }, [dispatch]);

  useImperativeHandle(
    ref,
    () => ({
      addRow,
      focusCard(id: string) {
        pendingFocus.current = { id, target: 'front' };
      },
    }),
    [addRow],
  );

  const onMove = useCallback(
    (id: string, delta: -1 | 1) => {
      pendingFocus.current = { id, target: delta < 0 ? 'up' : 'down' };
      dispatch({ type: 'moveCardBy', id, delta });
    },
    [dispatch],
  );

  const onRemove = useCallback(
    (id: string) => {
      const list = cardsRef.current;
      const index = list.findIndex((card) => card.id === id);
      const neighbour = list[index + 1] ?? list[index - 1];
      pendingFocus.current = neighbour ? { id: neighbour.id, target: 'front' } : { id: null, target: 'add' };
      onRemoved?.(id);
      dispatch({ type: 'removeCard', id });
    },
    [dispatch, onRemoved],
  );

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const input = event.target;
    if (event.key !== 'Enter' || event.nativeEvent.isComposing || !(input instanceof HTMLInputElement)) return;
    const row = input.closest<HTMLElement>('[role="row"]');
    if (!row) return;
    event.preventDefault();
    // The tags field is reached with Tab: Enter walks the card's texts, so writing cards with the
    // keyboard takes no more keys than before tags existed (Enter in the tags moves on as well).
    const inputs = Array.from(row.querySelectorAll<HTMLInputElement>('input:not([data-field="tags"])'));
    const next = input.dataset.field === 'tags' ? undefined : inputs[inputs.indexOf(input) + 1];
    if (next) {
      next.focus();
      return;
    }
    const list = cardsRef.current;
    const index = list.findIndex((card) => card.id === row.dataset.cardId);
    const following = list[index + 1];
    if (following) {
      const next = table.current?.querySelector<HTMLInputElement>(`[data-card-id="${CSS.escape(following.id)}"] input[data-field="front"]`);
      if (next) next.focus();
      else {
        pendingFocus.current = { id: following.id, target: 'front' };
        setMounted(Number.POSITIVE_INFINITY);
      }
    } else {
      addRow();
    }
  };

  const columnClass = [
    'card-table',
    columns.gender ? 'has-gender' : '',
    columns.pronunciation ? 'has-pronunciation' : '',
    columns.example ? 'has-example' : '',
  ].join(' ');

  return (
    <div className="card-table-wrap">
      <div ref={table} role="table" aria-label="Cards" aria-rowcount={cards.length + 1} className={columnClass} onKeyDown={onKeyDown}>
        <div role="rowgroup" className="card-table__head">
          <div role="row" className="card-row card-row--head">
            <span role="columnheader" className="card-row__number">
              #
            </span>
            <span role="columnheader">{sourceLabel} (Front)</span>
            <span role="columnheader">{targetLabel} (Back)</span>
            {columns.gender && <span role="columnheader">Gender</span>}
            {columns.pronunciation && <span role="columnheader">Pronunciation</span>}
            {columns.example && <span role="columnheader">Example</span>}
            <span role="columnheader">Tags</span>
            <span role="columnheader" className="card-row__actions">
              <span className="visually-hidden">Actions</span>
            </span>
          </div>
        </div>
        <div role="rowgroup" className="card-table__body">
          {blocks.slice(0, mounted).map((block, b) => (
            <CardBlock
              // Blocks are positions, not identities: block b always holds cards b*100 to b*100+99.
              key={b}
              cards={block}
              offset={b * BLOCK_SIZE}
              lastIndex={cards.length - 1}
              columns={columns}
              labels={labels}
              dispatch={dispatch}
              onMove={onMove}
              onRemove={onRemove}
            />
          ))}
        </div>
      </div>
      {cards.length === 0 && <p className="hint card-table__empty">No cards yet. Add one to get started.</p>}
      <p className="hint">Tab to move across fields • Enter on last field adds a new row</p>
      <p className="hint">
        Cloze cards: write <code>{'{{c1::answer}}'}</code> or <code>{'{{c1::answer::hint}}'}</code> in the front; each number becomes a card of its own, and the
        back is optional.
      </p>
      <div>
        <button ref={addButton} type="button" className="button" onClick={addRow}>
          Add another
        </button>
      </div>
    </div>
  );
}

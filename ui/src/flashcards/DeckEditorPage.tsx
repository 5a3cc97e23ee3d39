// The deck editor (SPEC.md 2 and 4), shared by /flashcards/new and /flashcards/{id}/edit: the
// deck's metadata and switches, the cards table, Save (button and Ctrl/Cmd+S) with the save-toast,
// Delete with confirmation, and a draft written shortly after every change and restored on return.
import './DeckEditorPage.css';
import { useCallback, useEffect, useLayoutEffect, useMemo, useReducer, useRef, useState, type ReactNode } from 'react';
import { useBlocker, useNavigate, useParams } from 'react-router';
import { Plus, Save, Trash2, Undo2 } from 'lucide-react';
import { DeckEditorActionsSlot, DeckShareStatusSlot } from '../lib/slots';
import { useDocumentTitle } from '../lib/useDocumentTitle';
import { CardTable, type CardTableHandle, type Columns } from './CardTable';
import { newGuid } from './guid';
import { cardCount, defaultMeta, displayName, emptyCard, langLabel, metaOf, normaliseForSave, type DeckMeta } from './deck';
import { canSave, editorReducer, filledCount, isDirty, saveBlocker, type EditorState } from './editor';
import {
  canUndo,
  editorStart,
  mustAskBeforeUnload,
  removalOf,
  restoreRemoved,
  shouldConfirmLeave,
  UNDO_MS,
  type EditorStart,
  type RemovedCard,
} from './editorSession';
import { DraftNotice } from '../lib/DraftNotice';
import { LeaveDialog } from '../lib/LeaveDialog';
import type { DeckListNotice } from './DeckListPage';
import { LanguageSelect } from './LanguageSelect';
import { deckStore } from './storage';
import { pruneMedia } from './media/lifecycle';
import { newId } from './uuid';

export const TOAST_MS = 1600;
/** Typing pauses this long before the draft is written: serialising 5,000 cards per key is waste. */
const DRAFT_DELAY_MS = 400;

/** The editor's starting point (editorSession.ts), read from the store. */
function loadEditor(routeId: string | null): EditorStart {
  return editorStart(
    routeId,
    {
      deck: routeId === null ? null : deckStore.readDeck(routeId),
      deckDraft: routeId === null ? null : deckStore.readDraft(routeId),
      newDraft: deckStore.readDraft(null),
    },
    newId,
  );
}

/**
 * Keeps one editor instance while a new deck turns into a saved one (its URL changes from /new to
 * /{id}/edit), and starts a fresh one when the route points at another deck.
 */
export function DeckEditorRoute() {
  const { id } = useParams();
  const routeId = id ?? null;
  // `created` is the id a new deck just got; the router applies the URL change as a transition,
  // so it arrives after this state and must then be recognised as the same editor.
  const [session, setSession] = useState({ key: 0, deckId: routeId, created: null as string | null });
  if (session.deckId !== routeId) {
    const same = routeId !== null && routeId === session.created;
    setSession({ key: same ? session.key : session.key + 1, deckId: routeId, created: null });
  }
  const onCreated = useCallback((deckId: string) => setSession((current) => ({ ...current, created: deckId })), []);
  return <DeckEditor key={session.key} routeId={routeId} onCreated={onCreated} />;
}

function Switch({ label, checked, onChange, hint }: { label: string; checked: boolean; onChange: (value: boolean) => void; hint?: ReactNode }) {
  return (
    <label className="switch">
      <input type="checkbox" role="switch" checked={checked} onChange={(event) => onChange(event.target.checked)} />
      <span className="switch__track" aria-hidden="true" />
      <span className="switch__text">
        <span>{label}</span>
        {hint && <span className="hint">{hint}</span>}
      </span>
    </label>
  );
}

function DeckEditor({ routeId, onCreated }: { routeId: string | null; onCreated: (id: string) => void }) {
  const navigate = useNavigate();
  const [start] = useState(() => loadEditor(routeId));
  const [state, dispatch] = useReducer(editorReducer, start.state);
  const [restored, setRestored] = useState(start.restored);
  const [removed, setRemoved] = useState<RemovedCard | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [draftError, setDraftError] = useState<string | null>(null);
  const [toast, setToast] = useState(0);
  const [announcement, setAnnouncement] = useState('');
  const [triedInvalid, setTriedInvalid] = useState(false);
  const table = useRef<CardTableHandle>(null);
  const nameInput = useRef<HTMLInputElement>(null);
  /** Set once the deck is deleted, so no draft of it is written on the way out. */
  const discarded = useRef(false);
  /** Set when the editor itself navigates (after a save or a delete): no question asked then. */
  const leaving = useRef(false);

  const { meta, cards, deckId } = state;
  const isExisting = deckId !== null;
  const valid = canSave(state);
  const count = filledCount(state);
  const source = langLabel(meta.sourceLang);
  const target = langLabel(meta.targetLang);
  useDocumentTitle(isExisting ? `Edit ${meta.name.trim() || 'deck'}` : 'New Deck');

  const setMeta = useCallback((patch: Partial<DeckMeta>) => dispatch({ type: 'setMeta', patch }), []);
  const columns = useMemo<Columns>(
    () => ({ gender: meta.genderField, pronunciation: meta.pronunciationField, example: meta.exampleField }),
    [meta.genderField, meta.pronunciationField, meta.exampleField],
  );

  // Draft autosave: a short pause after the last change, and at once when leaving the page.
  const latest = useRef(state);
  useEffect(() => {
    latest.current = state;
    if (!isDirty(state)) return;
    const handle = window.setTimeout(() => {
      const result = deckStore.writeDraft(draftOf(state));
      setDraftError(result.ok ? null : result.error);
    }, DRAFT_DELAY_MS);
    return () => window.clearTimeout(handle);
  }, [state]);
  useEffect(() => {
    const flush = () => {
      const current = latest.current;
      if (discarded.current || !isDirty(current)) return;
      deckStore.writeDraft(draftOf(current));
    };
    const onHide = () => {
      if (document.visibilityState === 'hidden') flush();
    };
    window.addEventListener('pagehide', flush);
    document.addEventListener('visibilitychange', onHide);
    return () => {
      window.removeEventListener('pagehide', flush);
      document.removeEventListener('visibilitychange', onHide);
      flush();
    };
  }, []);

  useEffect(() => {
    if (toast === 0) return;
    const handle = window.setTimeout(() => setToast(0), TOAST_MS);
    return () => window.clearTimeout(handle);
  }, [toast]);

  /** Saves the deck; a new deck's address becomes its own unless the visitor is leaving. */
  const saveDeck = useCallback(
    (replaceUrl: boolean): boolean => {
      if (!canSave(state)) {
        setTriedInvalid(true);
        return false;
      }
      const id = state.deckId ?? newId();
      const result = deckStore.saveDeck(normaliseForSave(id, state.meta, state.cards, new Date()));
      if (!result.ok) {
        setError(result.error);
        setAnnouncement(result.error);
        return false;
      }
      setError(null);
      setTriedInvalid(false);
      setRestored(null);
      deckStore.clearDraft(null);
      deckStore.clearDraft(id);
      // Files the saved deck (or its cleared drafts) no longer refers to leave the media store.
      void pruneMedia();
      dispatch({ type: 'saved', deckId: id, revision: state.revision });
      setToast((n) => n + 1);
      setAnnouncement(`Deck saved at ${new Date().toLocaleTimeString()}`);
      if (state.deckId === null && replaceUrl) {
        onCreated(id);
        leaving.current = true;
        void navigate(`/flashcards/${id}/edit`, { replace: true });
      }
      return true;
    },
    [state, navigate, onCreated],
  );
  const save = useCallback(() => void saveDeck(true), [saveDeck]);

  // Ctrl/Cmd+S works from the moment the editor shows: the key handler is attached while the
  // editor is drawn (a layout effect, not after paint), once, and always calls the latest save.
  const latestSave = useRef(save);
  useLayoutEffect(() => {
    latestSave.current = save;
  }, [save]);
  useLayoutEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 's') {
        event.preventDefault();
        latestSave.current();
      }
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, []);

  const remove = () => {
    if (deckId === null) return;
    if (!window.confirm('Delete this deck? This cannot be undone.')) return;
    discarded.current = true;
    leaving.current = true;
    try {
      deckStore.deleteDeck(deckId);
      if (deckStore.readDraft(null)?.deckId === deckId) deckStore.clearDraft(null);
      void pruneMedia();
    } catch {
      // SPEC.md 8: a failed delete is not reported; the visitor still returns to the list.
    }
    const notice: DeckListNotice = { notice: `Deleted “${meta.name.trim() || 'Untitled deck'}”.` };
    void navigate('/flashcards', { state: notice });
  };

  const showInvalid = triedInvalid && !valid;
  const blocker = saveBlocker(state);
  const dirty = isDirty(state);

  // Leaving with unsaved changes writes the draft at once, and it comes back when the editor opens
  // again: in-app navigation asks (offering to save) and closing or reloading the tab gets the
  // browser's own question only when that write fails, as then the changes would be lost.
  const guard = useBlocker(({ currentLocation, nextLocation }) =>
    shouldConfirmLeave({
      dirty: isDirty(latest.current),
      allowed: leaving.current || discarded.current,
      from: currentLocation.pathname,
      to: nextLocation.pathname,
      keepDraft: () => deckStore.writeDraft(draftOf(latest.current)).ok,
    }),
  );
  useEffect(() => {
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      const current = latest.current;
      if (discarded.current || !isDirty(current)) return;
      const draftKept = deckStore.writeDraft(draftOf(current)).ok;
      if (mustAskBeforeUnload({ dirty: true, draftKept })) event.preventDefault();
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, []);

  const discardChanges = () => {
    const stored = state.deckId === null ? null : deckStore.readDeck(state.deckId);
    deckStore.clearDraft(state.deckId);
    if (state.deckId === null) deckStore.clearDraft(null);
    const cards = stored && stored.cards.length > 0 ? stored.cards : [emptyCard(newId(), newGuid())];
    dispatch({ type: 'load', deckId: state.deckId, meta: stored ? metaOf(stored) : defaultMeta(), cards });
    setRestored(null);
    setRemoved(null);
    setAnnouncement('Unsaved changes discarded.');
    nameInput.current?.focus();
  };

  const onRemoveCard = useCallback((id: string) => {
    setRemoved(removalOf(latest.current.cards, id, Date.now()));
  }, []);
  const undoRemove = () => {
    if (!canUndo(removed, Date.now())) return;
    dispatch({ type: 'replaceCards', cards: restoreRemoved(latest.current.cards, removed) });
    table.current?.focusCard(removed.card.id);
    setRemoved(null);
  };
  useEffect(() => {
    if (!removed) return;
    const handle = window.setTimeout(() => setRemoved(null), UNDO_MS);
    return () => window.clearTimeout(handle);
  }, [removed]);

  const saveAndLeave = () => {
    // Only a completed save lets the navigation go on; a failed one keeps the visitor here.
    if (saveDeck(false)) {
      leaving.current = true;
      // Saved: nothing is left for the way out to keep as a draft.
      discarded.current = true;
      guard.proceed?.();
    } else guard.reset?.();
  };

  return (
    <section className="page deck-editor" aria-labelledby="editor-title">
      <div className="toolbar editor-toolbar">
        <div className="toolbar__title">
          {/* The spec titles the shared editor 'New Deck' for new and saved decks alike. */}
          <h1 id="editor-title">New Deck</h1>
          <span className="count" aria-live="polite">
            {cardCount(count)}
          </span>
          {dirty && <span className="unsaved-marker">Unsaved changes</span>}
        </div>
        <div className="editor-actions" role="group" aria-label="Deck actions">
          {isExisting && (
            <button type="button" className="button button--danger" onClick={remove}>
              <Trash2 aria-hidden="true" size={16} />
              <span className="editor-actions__label">Delete</span>
            </button>
          )}
          <button type="button" className="button" onClick={() => table.current?.addRow()}>
            <Plus aria-hidden="true" size={16} />
            Add Card
          </button>
          <button
            type="button"
            className="button button--primary"
            disabled={!valid}
            onClick={save}
            aria-keyshortcuts="Control+S Meta+S"
            aria-describedby={blocker ? 'save-rule' : undefined}
          >
            <Save aria-hidden="true" size={16} />
            Save Deck
          </button>
          {isExisting && <DeckEditorActionsSlot deckId={deckId} />}
          {blocker && (
            <p id="save-rule" className={showInvalid ? 'save-rule save-rule--warning' : 'save-rule'}>
              {blocker}
            </p>
          )}
        </div>
      </div>
      {isExisting && <DeckShareStatusSlot deckId={deckId} />}
      {restored && <DraftNotice savedAt={restored.savedAt} onDiscard={discardChanges} />}
      {error && (
        <p className="alert" role="alert">
          {error}
        </p>
      )}
      {draftError && !error && (
        <p className="alert" role="alert">
          {draftError}
        </p>
      )}

      <div className="card editor-form">
        <div className="editor-form__grid">
          <label className="field">
            Deck name
            <input
              ref={nameInput}
              className="input"
              value={meta.name}
              required
              aria-invalid={showInvalid && meta.name.trim() === ''}
              placeholder="e.g. French basics"
              onChange={(event) => setMeta({ name: event.target.value })}
            />
          </label>
          <label className="field">
            Deck author
            <input className="input" value={meta.author} onChange={(event) => setMeta({ author: event.target.value })} />
          </label>
          <label className="field editor-form__wide">
            <span>
              Description <span className="hint">(optional)</span>
            </span>
            <textarea
              className="textarea editor-form__description"
              rows={2}
              value={meta.description}
              onChange={(event) => setMeta({ description: event.target.value })}
            />
          </label>
          <LanguageSelect label="Source language" value={meta.sourceLang} onChange={(sourceLang) => setMeta({ sourceLang })} />
          <LanguageSelect label="Target language" value={meta.targetLang} onChange={(targetLang) => setMeta({ targetLang })} />
        </div>
        <fieldset className="editor-form__switches">
          <legend className="visually-hidden">Card fields and practice</legend>
          <Switch label="Pronunciation field" checked={meta.pronunciationField} onChange={(pronunciationField) => setMeta({ pronunciationField })} />
          <Switch label="Gender field" checked={meta.genderField} onChange={(genderField) => setMeta({ genderField })} />
          <Switch label="Example field" checked={meta.exampleField} onChange={(exampleField) => setMeta({ exampleField })} />
          <Switch
            label="Bidirectional practice"
            checked={meta.bidirectional}
            onChange={(bidirectional) => setMeta({ bidirectional })}
            hint={`${source}→${target} and ${target}→${source}`}
          />
          <Switch
            label="Play sounds by themselves"
            checked={meta.autoplay}
            onChange={(autoplay) => setMeta({ autoplay })}
            hint="In practice, a card’s front sound plays when the card comes up"
          />
        </fieldset>
      </div>

      <CardTable ref={table} cards={cards} columns={columns} sourceLabel={source} targetLabel={target} dispatch={dispatch} onRemoved={onRemoveCard} />

      {removed && (
        <div className="undo-toast" role="status">
          <span>Card removed.</span>
          <button type="button" className="button button--quiet" onClick={undoRemove}>
            <Undo2 aria-hidden="true" size={16} />
            Undo
          </button>
        </div>
      )}
      {guard.state === 'blocked' && (
        <LeaveDialog
          name={displayName(meta.name)}
          canSave={valid}
          onStay={() => guard.reset()}
          onLeave={() => {
            leaving.current = true;
            guard.proceed();
          }}
          onSave={saveAndLeave}
        />
      )}

      {toast > 0 && (
        <div id="save-toast" className="toast" key={toast}>
          Deck saved
        </div>
      )}
      <p className="visually-hidden" role="status">
        {announcement}
      </p>
    </section>
  );
}

function draftOf(state: EditorState) {
  return { deckId: state.deckId, meta: state.meta, cards: [...state.cards], savedAt: new Date().toISOString() };
}

// The deck list, 'Your Decks' (SPEC.md 2): saved decks newest first, each with its languages, card
// count, author, description, a Practice button and its creation date; an empty state otherwise.
// Beyond the spec: export (all decks, or one deck as JSON, Anki text or an Anki package), import, and a gentle
// reminder when no backup was exported for 30 days; and from the review log, 'N due' per deck, a
// 'Review due (N)' action beside Practice and a link to the deck's progress.
import './DeckListPage.css';
import { memo, useEffect, useId, useRef, useState } from 'react';
import { useLocation } from 'react-router';
import { ChartColumn, Download, FileBraces, FileText, Package, CalendarClock, Pencil, Play, Plus, Search, Tag, Upload, X } from 'lucide-react';
import { ButtonLink } from '../lib/ButtonLink';
import { onSynced } from '../lib/localChanges';
import { DeckListActionsSlot, DeckShareStatusSlot } from '../lib/slots';
import { COMPACT_FROM, filterDecks } from './deckSearch';
import { MenuButton } from './MenuButton';
import { PackageExportStatus, usePackageExport } from './PackageExport';
import { useDocumentTitle } from '../lib/useDocumentTitle';
import { cardCount, displayName, langLabel, sortNewestFirst } from './deck';
import { exportAllDecks, exportDeckAnki, exportDeckJson } from './exportFiles';
import { ImportDialog, type ImportDialogHandle } from './ImportDialog';
import { backupReminder } from './io/reminder';
import { practiceCountText } from './practice';
import { deckStore, type ListedSummary } from './storage';
import { tagQuery } from './tags';
import { StorageNotice } from './StorageNotice';
import { useRenderSlices } from './renderSlices';

/** Tags linked on a deck card; the rest are on its progress page. */
const TAGS_ON_CARD = 6;

/** What another screen can pass when it sends the visitor here (e.g. after a delete). */
export interface DeckListNotice {
  notice?: string;
}

function localDate(iso: string): string | null {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? null : date.toLocaleDateString();
}

/** Exports the stored deck `id` with `exporter`; a deck gone meanwhile exports nothing. */
function exportStored(id: string, exporter: typeof exportDeckJson | typeof exportDeckAnki) {
  const deck = deckStore.readDeck(id);
  if (deck) void exporter(deck);
}

/**
 * A deck as the list shows it: its summary (storage.ts keeps one beside each deck, so the list
 * never reads the cards) with its due counts, taken once when the list is read.
 */
const DeckCard = memo(function DeckCard({ deck, onPackage }: { deck: ListedSummary; onPackage: (id: string) => void }) {
  const name = displayName(deck.name);
  const created = localDate(deck.createdAt);
  const titleId = `deck-${deck.id}-title`;
  const practiceNote = practiceCountText(deck.cardCount, deck.practice);
  return (
    <li className="card deck-card" aria-labelledby={titleId}>
      <div className="deck-card__head">
        <h2 className="deck-card__name" id={titleId} title={name}>
          {name}
        </h2>
        <ButtonLink look="icon" to={`/flashcards/${deck.id}/edit`} aria-label={`Edit ${name}`} title="Edit deck">
          <Pencil aria-hidden="true" size={18} />
        </ButtonLink>
      </div>
      <div className="deck-card__pills">
        <span className="pill pill--accent">
          {langLabel(deck.sourceLang)} → {langLabel(deck.targetLang)}
        </span>
        <span className="pill">{cardCount(deck.cardCount)}</span>
        {deck.author.trim() !== '' && <span className="pill">{deck.author}</span>}
        {/* Not one of the spec's pills: a badge of its own, from the review log. */}
        <span className={deck.due > 0 ? 'due-badge due-badge--due' : 'due-badge'}>{deck.due} due</span>
        {/* What "N due" and a session count, said where that is not one per card. */}
        {practiceNote && <span className="deck-card__practice-count">{practiceNote}</span>}
      </div>
      <DeckShareStatusSlot deckId={deck.id} />
      {deck.description.trim() !== '' && <p className="deck-card__description">{deck.description}</p>}
      {deck.tags.length > 0 && (
        <ul className="deck-card__tags" aria-label={`Practice ${name} by tag`}>
          {deck.tags.slice(0, TAGS_ON_CARD).map((tag) => (
            <li key={tag}>
              <ButtonLink
                look="quiet"
                className="deck-card__tag"
                to={`/flashcards/${deck.id}/practice${tagQuery(tag)}`}
                aria-label={`Practice ${tag} in ${name}`}
              >
                <Tag aria-hidden="true" size={14} />
                {tag}
              </ButtonLink>
            </li>
          ))}
          {deck.tags.length > TAGS_ON_CARD && (
            <li>
              <ButtonLink
                look="quiet"
                className="deck-card__tag"
                to={`/flashcards/${deck.id}/progress`}
                aria-label={`${deck.tags.length - TAGS_ON_CARD} more tags of ${name}`}
              >
                {deck.tags.length - TAGS_ON_CARD} more tags
              </ButtonLink>
            </li>
          )}
        </ul>
      )}
      <div className="deck-card__foot">
        <div className="deck-card__practice">
          <ButtonLink look="primary" to={`/flashcards/${deck.id}/practice`} aria-label={`Practice ${name}`}>
            <Play aria-hidden="true" size={16} />
            Practice
          </ButtonLink>
          {deck.reviewDue > 0 ? (
            <ButtonLink to={`/flashcards/${deck.id}/review`} aria-label={`Review due (${deck.reviewDue}) in ${name}`}>
              <CalendarClock aria-hidden="true" size={16} />
              Review due ({deck.reviewDue})
            </ButtonLink>
          ) : (
            <button type="button" className="button" disabled aria-label={`Review due (0) in ${name}`}>
              <CalendarClock aria-hidden="true" size={16} />
              Review due (0)
            </button>
          )}
        </div>
        <div className="deck-card__more">
          {created && <span className="deck-card__date">Created: {created}</span>}
          <ButtonLink look="icon" to={`/flashcards/${deck.id}/progress`} aria-label={`Progress of ${name}`} title="Progress">
            <ChartColumn aria-hidden="true" size={18} />
          </ButtonLink>
          {/* One menu for the export formats: look-alike icons side by side were easy to confuse. */}
          <MenuButton
            label={`Export ${name}`}
            items={[
              { label: 'Export as JSON', icon: <FileBraces aria-hidden="true" size={16} />, onSelect: () => exportStored(deck.id, exportDeckJson) },
              { label: 'Export as Anki text', icon: <FileText aria-hidden="true" size={16} />, onSelect: () => exportStored(deck.id, exportDeckAnki) },
              { label: 'Export as Anki package (.apkg)', icon: <Package aria-hidden="true" size={16} />, onSelect: () => onPackage(deck.id) },
            ]}
          >
            <Download aria-hidden="true" size={18} />
          </MenuButton>
        </div>
      </div>
    </li>
  );
});

export function DeckListPage() {
  useDocumentTitle('Your Decks');
  const location = useLocation();
  const routeNotice = (location.state as DeckListNotice | null)?.notice;
  // Read once per visit, and again after an import: the other changes come from other screens.
  const [decks, setDecks] = useState(loadDecks);
  const [importNotice, setImportNotice] = useState<string | null>(null);
  const [reminderDays, setReminderDays] = useState(() => reminderFor(decks));
  const notice = importNotice ?? routeNotice;
  const heading = useRef<HTMLHeadingElement>(null);
  const importDialog = useRef<ImportDialogHandle>(null);
  const searchId = useId();
  const [query, setQuery] = useState('');
  const shown = filterDecks(decks, query);
  const compact = decks.length >= COMPACT_FROM;
  const rendered = useRenderSlices(shown.length);
  const [packageExport, exportPackage, dismissPackageExport] = usePackageExport();

  const exportAll = () => {
    setReminderDays(null);
    void exportAllDecks(sortNewestFirst(deckStore.listDecks())).then(
      (note) => note && setImportNotice(note),
      (error: unknown) => setImportNotice(`The export failed: ${error instanceof Error ? error.message : String(error)}`),
    );
  };

  // Decks that sync brought from another device show as they arrive.
  useEffect(() => onSynced(() => setDecks(loadDecks())), []);

  useEffect(() => {
    // After a delete the focused button is gone; start again from the page's heading.
    if (routeNotice) heading.current?.focus();
  }, [routeNotice]);

  return (
    <section className="page deck-list-page">
      <div className="toolbar">
        <div className="toolbar__title">
          <h1 ref={heading} tabIndex={-1}>
            Your Decks
          </h1>
          <span className="count">{decks.length} deck(s)</span>
        </div>
        <div className="deck-list-page__actions">
          <DeckListActionsSlot />
          <button type="button" className="button button--quiet" onClick={() => importDialog.current?.open()}>
            <Upload aria-hidden="true" size={18} />
            Import
          </button>
          {decks.length > 0 && (
            <button
              type="button"
              className="button button--quiet"
              onClick={exportAll}
              title="Download every deck as a backup (JSON, or a zip when they have pictures or sounds)"
            >
              <Download aria-hidden="true" size={18} />
              Export
            </button>
          )}
          <ButtonLink look="primary" to="/flashcards/new">
            <Plus aria-hidden="true" size={18} />
            New Deck
          </ButtonLink>
        </div>
      </div>
      <p role="status" className={notice ? 'notice' : 'visually-hidden'}>
        {notice}
      </p>
      {reminderDays !== null && (
        <div className="alert alert--warning backup-reminder" role="note" aria-label="Backup reminder">
          <p>
            {deckStore.readLastExport() === null ? 'Your decks have not been backed up yet.' : `Your last backup was ${reminderDays} days ago.`} They live only
            in this browser, which can clear them; export a copy to keep them safe.
          </p>
          <div className="backup-reminder__actions">
            <button type="button" className="button" onClick={exportAll}>
              <Download aria-hidden="true" size={16} />
              Export backup
            </button>
            <button
              type="button"
              className="icon-button"
              aria-label="Dismiss the backup reminder"
              title="Remind me later"
              onClick={() => {
                deckStore.dismissReminder(new Date());
                setReminderDays(null);
              }}
            >
              <X aria-hidden="true" size={18} />
            </button>
          </div>
        </div>
      )}
      {decks.length === 0 ? (
        <div className="card page empty-state">
          <h2>No decks yet</h2>
          <p>Create your first deck to get started.</p>
          <ButtonLink look="primary" to="/flashcards/new">
            <Plus aria-hidden="true" size={18} />
            New Deck
          </ButtonLink>
        </div>
      ) : (
        <>
          <div className="deck-search" role="search">
            <label htmlFor={searchId} className="visually-hidden">
              Search decks
            </label>
            <Search aria-hidden="true" size={18} className="deck-search__icon" />
            <input
              id={searchId}
              className="input deck-search__input"
              type="search"
              value={query}
              placeholder="Search by name, author or language"
              autoComplete="off"
              onChange={(event) => setQuery(event.target.value)}
            />
            <span className="deck-search__count" aria-live="polite">
              {query.trim() !== '' && `${shown.length} of ${decks.length}`}
            </span>
          </div>
          {shown.length === 0 ? (
            <div className="card empty-state deck-search__empty">
              <p>No decks match “{query.trim()}”.</p>
              <button type="button" className="button" onClick={() => setQuery('')}>
                Clear search
              </button>
            </div>
          ) : (
            <ul className={compact ? 'deck-grid deck-grid--compact' : 'deck-grid'} aria-label="Decks">
              {shown.slice(0, rendered).map((deck) => (
                <DeckCard key={deck.id} deck={deck} onPackage={exportPackage} />
              ))}
            </ul>
          )}
        </>
      )}
      <StorageNotice deckCount={decks.length} onExport={exportAll} />
      <PackageExportStatus state={packageExport} onDismiss={dismissPackageExport} />
      <ImportDialog
        ref={importDialog}
        onImported={(imported) => {
          const next = loadDecks();
          setDecks(next);
          setReminderDays(reminderFor(next));
          const [first] = imported;
          setImportNotice(
            imported.length === 1 && first
              ? `Imported “${displayName(first.name)}” with ${cardCount(first.cards.length)}.`
              : `Imported ${imported.length} decks.`,
          );
        }}
      />
    </section>
  );
}

function loadDecks(now = Date.now()): ListedSummary[] {
  return sortNewestFirst(deckStore.listSummaries(now));
}

function reminderFor(decks: readonly ListedSummary[]): number | null {
  return backupReminder({
    deckCount: decks.length,
    lastExport: deckStore.readLastExport(),
    dismissedAt: deckStore.readReminderDismissed(),
    deckDates: decks.map((deck) => deck.createdAt),
    now: new Date(),
  });
}

// The deck list, 'Your Decks' (SPEC.md 2): saved decks newest first, each with its languages, card
// count, author, description, a Practice button and its creation date; an empty state otherwise.
import { useEffect, useMemo, useRef } from 'react';
import { Link, useLocation } from 'react-router';
import { Pencil, Play, Plus } from 'lucide-react';
import { useDocumentTitle } from '../lib/useDocumentTitle';
import { cardCount, displayName, langLabel, sortNewestFirst, type Deck } from './deck';
import { deckStore } from './storage';

/** What another screen can pass when it sends the visitor here (e.g. after a delete). */
export interface DeckListNotice {
  notice?: string;
}

function localDate(iso: string): string | null {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? null : date.toLocaleDateString();
}

function DeckCard({ deck }: { deck: Deck }) {
  const name = displayName(deck.name);
  const created = localDate(deck.createdAt);
  const titleId = `deck-${deck.id}-title`;
  return (
    <li className="card deck-card" aria-labelledby={titleId}>
      <div className="deck-card__head">
        <h2 className="deck-card__name" id={titleId}>
          {name}
        </h2>
        <Link className="icon-button" to={`/flashcards/${deck.id}/edit`} aria-label={`Edit ${name}`} title="Edit deck">
          <Pencil aria-hidden="true" size={18} />
        </Link>
      </div>
      <div className="deck-card__pills">
        <span className="pill pill--accent">
          {langLabel(deck.sourceLang)} → {langLabel(deck.targetLang)}
        </span>
        <span className="pill">{cardCount(deck.cards.length)}</span>
        {deck.author.trim() !== '' && <span className="pill">{deck.author}</span>}
      </div>
      {deck.description.trim() !== '' && <p className="deck-card__description">{deck.description}</p>}
      <div className="deck-card__foot">
        <Link className="button button--primary" to={`/flashcards/${deck.id}/practice`} aria-label={`Practice ${name}`}>
          <Play aria-hidden="true" size={16} />
          Practice
        </Link>
        {created && <span className="deck-card__date">Created: {created}</span>}
      </div>
    </li>
  );
}

export function DeckListPage() {
  useDocumentTitle('Your Decks');
  const location = useLocation();
  const notice = (location.state as DeckListNotice | null)?.notice;
  // Read once per visit: the list changes only through the other screens.
  const decks = useMemo(() => sortNewestFirst(deckStore.listDecks()), []);
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    // After a delete the focused button is gone; start again from the page's heading.
    if (notice) heading.current?.focus();
  }, [notice]);

  return (
    <section className="page deck-list-page">
      <div className="toolbar">
        <div className="toolbar__title">
          <h1 ref={heading} tabIndex={-1}>
            Your Decks
          </h1>
          <span className="count">{decks.length} deck(s)</span>
        </div>
        <Link className="button button--primary" to="/flashcards/new">
          <Plus aria-hidden="true" size={18} />
          New Deck
        </Link>
      </div>
      <p role="status" className={notice ? 'notice' : 'visually-hidden'}>
        {notice}
      </p>
      {decks.length === 0 ? (
        <div className="card page empty-state">
          <h2>No decks yet</h2>
          <p>Create your first deck to get started.</p>
          <Link className="button button--primary" to="/flashcards/new">
            <Plus aria-hidden="true" size={18} />
            New Deck
          </Link>
        </div>
      ) : (
        <ul className="deck-grid" aria-label="Decks">
          {decks.map((deck) => (
            <DeckCard key={deck.id} deck={deck} />
          ))}
        </ul>
      )}
    </section>
  );
}

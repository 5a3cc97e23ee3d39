// /sync/deck#s=…&k=…: a deck someone shared, read-only (its name, author, description, languages
// and cards as the flashcards feature lists them: a cloze card's deletions blank on the front),
// with "Add to my decks" (a copy with a new id, which remembers the link so it is offered the
// sharer's later versions: shareUpdates.ts).
// The link's key leaves the address bar once read and stays in this tab's session (sharedLink.ts).
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import { Plus } from 'lucide-react';
import { ButtonLink } from '../lib/ButtonLink';
import { useDocumentTitle } from '../lib/useDocumentTitle';
import type { ShareLink } from './links';
import { keepSharedLink, readSharedLink } from './sharedLink';
import { openShare, type SharedDeck } from './shares';
import { addFollowingCopy } from './shareUpdates';
import { useBusyAction } from './useBusyAction';
import { useSyncInfo } from './useSync';
import { shareGoneText } from './words';
import { CardsTable } from './CardsTable';

function tabSession(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

type Loaded = { kind: 'loading' } | { kind: 'deck'; deck: SharedDeck } | { kind: 'gone' } | { kind: 'failed'; message: string };

export function SharedDeckPage() {
  useDocumentTitle('Shared deck');
  const info = useSyncInfo();
  const [link] = useState(() => readSharedLink(window.location, window.history.state, tabSession()));
  useEffect(() => {
    keepSharedLink(link, window.location, window.history, tabSession());
  }, [link]);
  const [loaded, setLoaded] = useState<Loaded>(() =>
    link ? { kind: 'loading' } : { kind: 'failed', message: 'This link is incomplete: copy the whole link again.' },
  );
  const [added, setAdded] = useState<string | null>(null);
  const { busy, error, run } = useBusyAction();
  const add = (shared: SharedDeck, from: ShareLink) => run(async () => setAdded(await addFollowingCopy(from, shared)));

  useEffect(() => {
    if (!link) return;
    let live = true;
    openShare(link).then(
      (deck) => live && setLoaded(deck ? { kind: 'deck', deck } : { kind: 'gone' }),
      (error: unknown) => live && setLoaded({ kind: 'failed', message: error instanceof Error ? error.message : String(error) }),
    );
    return () => {
      live = false;
    };
  }, [link]);

  if (loaded.kind === 'loading') return <section className="page" aria-busy="true" />;
  if (loaded.kind !== 'deck') {
    return (
      <section className="page page--narrow">
        <h1>Shared deck</h1>
        <p className="alert alert--warning">{loaded.kind === 'gone' ? shareGoneText(info?.shareExpiryDays) : loaded.message}</p>
        <Link to="/flashcards">Your decks</Link>
      </section>
    );
  }
  const deck = loaded.deck.preview;
  const name = deck.name.trim() || 'Untitled deck';
  return (
    <section className="page page--narrow shared-deck" aria-labelledby="shared-title">
      <div className="toolbar">
        <div className="toolbar__title">
          <h1 id="shared-title">{name}</h1>
          <span className="pill pill--accent">
            {deck.sourceLang.toUpperCase()} → {deck.targetLang.toUpperCase()}
          </span>
          {deck.author.trim() !== '' && <span className="pill">By {deck.author.trim()}</span>}
          <span className="count">{deck.cards.length} cards</span>
        </div>
        {added ? (
          <ButtonLink look="primary" to={`/flashcards/${added}/edit`}>
            Open my copy
          </ButtonLink>
        ) : (
          <button type="button" className="button button--primary" disabled={busy} onClick={() => link && void add(loaded.deck, link)}>
            <Plus aria-hidden="true" size={16} />
            Add to my decks
          </button>
        )}
      </div>
      {deck.description.trim() !== '' && <p className="shared-deck__description">{deck.description.trim()}</p>}
      {added && (
        <p role="status" className="notice">
          Added “{name}” to your decks. When the sharer saves a new version, your copy offers it, and your progress stays.
        </p>
      )}
      {error && (
        <p className="alert alert--warning" role="alert">
          {error}
        </p>
      )}
      <CardsTable className="shared-deck__cards" rows={deck.cards} front={(card) => card.front} back={(card) => card.back} />
    </section>
  );
}

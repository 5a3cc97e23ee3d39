// Taking a newer version of a shared deck into the learner's copy of it, without losing what is
// the learner's own. The rule (said in words on the update's page and in README):
// - the copy's cards keep their ids, so review marks and scheduling (keyed by card id) stay;
// - a card the learner has not edited since the last update takes the sharer's new text;
// - a card the learner edited keeps the learner's text, even when the sharer changed or removed it;
// - the sharer's new cards are added; the sharer's removed cards leave the copy (unless edited);
// - a card the learner removed stays removed; the learner's own added cards stay;
// - the deck's name, description and options follow the same rule, field by field;
// - whether a card is suspended is the learner's choice and is never taken from the sharer.
// What the copy was last given (its "base") is remembered as a fingerprint of each card's text,
// so telling an edit apart costs no second copy of the deck. Pure: the clock comes from the caller.
import { fingerprint } from '../lib/fingerprint';
import * as v from 'valibot';
import { record } from '../lib/schema';
import { metaOf, type Card, type Deck, type DeckMeta } from './deck';

/** What the copy was given last: a fingerprint of each card's texts, and the deck's fields. */
export interface ShareBase {
  cards: Record<string, string>;
  meta: Record<string, string>;
}

const ShareBaseSchema = record({
  cards: v.record(v.string(), v.string()),
  meta: v.record(v.string(), v.string()),
});

/** A remembered base, or null when it has not the shape of one. */
export function parseShareBase(value: unknown): ShareBase | null {
  const parsed = v.safeParse(ShareBaseSchema, value);
  return parsed.success ? parsed.output : null;
}

/** A card's texts and tags: what an edit changes (suspension is the learner's, not compared). */
const cardPrint = (card: Card) => fingerprint(JSON.stringify([card.front, card.back, card.pronunciation, card.gender, card.example, card.tags]));
const metaPrint = (value: unknown) => fingerprint(JSON.stringify(value));

export function shareBaseOf(deck: Deck): ShareBase {
  const cards: Record<string, string> = {};
  for (const card of deck.cards) cards[card.id] = cardPrint(card);
  const meta: Record<string, string> = {};
  for (const [field, value] of Object.entries(metaOf(deck))) meta[field] = metaPrint(value);
  return { cards, meta };
}

/** A card as the update's page lists it. */
export interface CardText {
  front: string;
  back: string;
}

export interface ShareUpdate {
  /** The copy after the update (saved now), or the copy unchanged when there is nothing to take. */
  deck: Deck;
  /** The base to remember once it is saved: the sharer's new version. */
  base: ShareBase;
  added: CardText[];
  changed: { before: CardText; after: CardText }[];
  removed: CardText[];
  /** Cards the sharer changed or removed that keep the learner's edit. */
  kept: CardText[];
  /** Whether the deck's name, description or options change. */
  detailsChanged: boolean;
  /** Whether the copy changes (else only the base is remembered anew). */
  deckChanged: boolean;
}

const textOf = (card: Card): CardText => ({ front: card.front, back: card.back });

/** Whether the update changes anything in the copy (else it is taken silently). */
export const hasChanges = (update: ShareUpdate) =>
  update.added.length + update.changed.length + update.removed.length + update.kept.length > 0 || update.detailsChanged;

/**
 * The copy `copy` after taking `incoming`, the shared deck's new version, given `base`, what the
 * copy was last given. Cards come in the sharer's order; the learner's own cards, and edited cards
 * the sharer removed, follow in the copy's order.
 */
export function planShareUpdate(copy: Deck, base: ShareBase, incoming: Deck, now: Date): ShareUpdate {
  const mine = new Map(copy.cards.map((card) => [card.id, card]));
  const theirs = new Set(incoming.cards.map((card) => card.id));
  const edited = (card: Card) => base.cards[card.id] !== cardPrint(card);
  const update: ShareUpdate = {
    deck: copy,
    base: shareBaseOf(incoming),
    added: [],
    changed: [],
    removed: [],
    kept: [],
    detailsChanged: false,
    deckChanged: false,
  };
  const cards: Card[] = [];
  for (const card of incoming.cards) {
    const own = mine.get(card.id);
    const sharerChanged = base.cards[card.id] !== cardPrint(card);
    if (!own) {
      // Not in the copy: new from the sharer, or removed by the learner (which stays).
      if (!(card.id in base.cards)) {
        cards.push({ ...card, suspended: false });
        update.added.push(textOf(card));
      }
      continue;
    }
    if (edited(own)) {
      cards.push(own);
      if (sharerChanged) update.kept.push(textOf(own));
    } else {
      cards.push({ ...card, suspended: own.suspended });
      if (sharerChanged) update.changed.push({ before: textOf(own), after: textOf(card) });
    }
  }
  for (const own of copy.cards) {
    if (theirs.has(own.id)) continue;
    if (!(own.id in base.cards)) cards.push(own);
    else if (edited(own)) {
      cards.push(own);
      update.kept.push(textOf(own));
    } else update.removed.push(textOf(own));
  }
  const ownMeta = metaOf(copy);
  const newMeta = metaOf(incoming);
  const meta: Record<string, unknown> = { ...ownMeta };
  for (const field of Object.keys(ownMeta) as (keyof DeckMeta)[]) {
    const learnerKept = base.meta[field] !== metaPrint(ownMeta[field]);
    if (!learnerKept && metaPrint(newMeta[field]) !== metaPrint(ownMeta[field])) {
      meta[field] = newMeta[field];
      update.detailsChanged = true;
    }
  }
  update.deckChanged = update.added.length + update.changed.length + update.removed.length > 0 || update.detailsChanged;
  if (update.deckChanged) {
    update.deck = { ...copy, ...(meta as unknown as DeckMeta), cards, createdAt: now.toISOString() };
  }
  return update;
}

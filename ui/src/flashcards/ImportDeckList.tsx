// The decks an import would add (a JSON backup's or an Anki package's), one line each: name,
// languages, "N cards" and what practice counts when that differs (a cloze card with two gaps is
// practised as two cards), reviews, and whether it comes as a copy. An Anki package's decks say
// the languages guessed for them and where from, and open to change them before anything is stored.
import type { Deck, Language } from './deck';
import { cardCount, displayName } from './deck';
import { GUESS_WORDS, type DeckLanguageGuess, type SideGuess } from './io/languageGuess';
import { languageName } from './languages';
import { LanguageSelect } from './LanguageSelect';
import { practiceCount, practiceCountText } from './practice';
import type { ReviewRecord } from './srs/reviewLog';

export interface DeckLanguages {
  sourceLang: Language;
  targetLang: Language;
}

interface Props {
  decks: readonly Deck[];
  reviews: readonly (ReviewRecord | null)[];
  /** Ids already in this browser (such a deck is added as a copy). */
  taken: ReadonlySet<string>;
  /** Guesses of an Anki package's decks: these decks' languages can be changed. */
  guesses?: readonly DeckLanguageGuess[];
  /** The languages chosen so far, by deck index (absent: the deck's own). */
  chosen: Readonly<Record<number, DeckLanguages>>;
  onChoose: (index: number, languages: DeckLanguages) => void;
}

const reviewCount = (count: number) => (count === 1 ? '1 review' : `${count} reviews`);

/** Where a side's language came from, in words; the default when nothing said it. */
function origin(guess: SideGuess | null, chosen: boolean): string {
  if (chosen) return 'as you chose';
  return guess ? GUESS_WORDS[guess.from] : 'nothing in the package says it: the default';
}

export function ImportDeckList({ decks, reviews, taken, guesses, chosen, onChoose }: Props) {
  return (
    <>
      <p className="hint">{decks.length === 1 ? '1 deck to import:' : `${decks.length} decks to import:`}</p>
      <ul className="import-dialog__decks">
        {decks.map((deck, index) => {
          const languages = chosen[index] ?? { sourceLang: deck.sourceLang, targetLang: deck.targetLang };
          const guess = guesses?.[index];
          const name = displayName(deck.name);
          const counted = practiceCountText(deck.cards.length, practiceCount(deck));
          const log = reviews[index];
          return (
            <li key={`${deck.id}-${index}`}>
              <strong>{name}</strong> · {languages.sourceLang.toUpperCase()} → {languages.targetLang.toUpperCase()} · {cardCount(deck.cards.length)}
              {counted && ` (${counted})`}
              {log && ` · ${reviewCount(log.log.length)}`}
              {taken.has(deck.id) && <span className="hint"> (already here: added as a copy)</span>}
              {guess && (
                <details className="import-dialog__languages">
                  <summary>
                    Languages: {languageName(languages.sourceLang)} ({origin(guess.source, chosen[index] !== undefined)}) → {languageName(languages.targetLang)}{' '}
                    ({origin(guess.target, chosen[index] !== undefined)})
                  </summary>
                  <div className="import-dialog__deck">
                    <LanguageSelect
                      label={`Source language of ${name}`}
                      value={languages.sourceLang}
                      onChange={(sourceLang) => onChoose(index, { ...languages, sourceLang })}
                    />
                    <LanguageSelect
                      label={`Target language of ${name}`}
                      value={languages.targetLang}
                      onChange={(targetLang) => onChoose(index, { ...languages, targetLang })}
                    />
                  </div>
                </details>
              )}
            </li>
          );
        })}
      </ul>
    </>
  );
}

import { describe, expect, it } from 'vitest';
import { defaultMeta } from './deck';
import { filterDecks, fold } from './deckSearch';
import { menuFocusAfter } from './menuKeys';

const deck = (name: string, extra: Partial<ReturnType<typeof defaultMeta>> = {}) => ({ ...defaultMeta(), name, ...extra });

describe('filterDecks', () => {
  const decks = [
    deck('Français de base', { author: 'Ada' }),
    deck('Dutch verbs', { sourceLang: 'en', targetLang: 'nl', description: 'irregular ones' }),
    deck('Magyar', { targetLang: 'hu', author: 'Grace' }),
  ];
  const names = (query: string) => filterDecks(decks, query).map((d) => d.name);

  it('keeps every deck, in order, for a blank query', () => {
    expect(names('')).toEqual(['Français de base', 'Dutch verbs', 'Magyar']);
    expect(names('   ')).toHaveLength(3);
  });

  it('ignores case and accents and needs every word', () => {
    expect(names('FRANCAIS')).toEqual(['Français de base']);
    expect(names('dutch irregular')).toEqual(['Dutch verbs']);
    expect(names('dutch magyar')).toEqual([]);
  });

  it('finds decks by author, description and language code or name', () => {
    expect(names('grace')).toEqual(['Magyar']);
    expect(names('hungarian')).toEqual(['Magyar']);
    expect(names('nl')).toEqual(['Dutch verbs']);
  });

  it('folds accents away', () => {
    expect(fold('Élève')).toBe('eleve');
  });
});

describe('menuFocusAfter', () => {
  it('wraps with the arrows and jumps with Home and End', () => {
    expect(menuFocusAfter('ArrowDown', 1, 2)).toBe(0);
    expect(menuFocusAfter('ArrowUp', 0, 2)).toBe(1);
    expect(menuFocusAfter('ArrowDown', -1, 3)).toBe(0);
    expect(menuFocusAfter('Home', 2, 3)).toBe(0);
    expect(menuFocusAfter('End', 0, 3)).toBe(2);
    expect(menuFocusAfter('a', 0, 3)).toBeNull();
    expect(menuFocusAfter('ArrowDown', 0, 0)).toBeNull();
  });
});

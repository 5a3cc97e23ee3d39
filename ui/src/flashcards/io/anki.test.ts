import { describe, expect, it } from 'vitest';
import type { Card } from '../deck';
import { htmlToText, looksLikeAnki, readAnki, separatorFromHeader, writeAnki } from './anki';

const card = (id: string, front: string, back: string, extra: Partial<Card> = {}): Card => ({
  id,
  front,
  back,
  pronunciation: '',
  gender: '',
  example: '',
  tags: [],
  suspended: false,
  media: [],
  guid: '',
  ...extra,
});

const strip = (cards: readonly { front: string; back: string; pronunciation: string; gender: string; example: string }[]) =>
  cards.map(({ front, back, pronunciation, gender, example }) => ({ front, back, pronunciation, gender, example }));

describe('writeAnki', () => {
  it('writes the header lines and one tab-separated note per line', () => {
    const text = writeAnki([card('1', 'cat', 'chat', { pronunciation: '/ʃa/', gender: 'm', example: 'Le chat dort.' }), card('2', 'dog', 'chien')]);
    expect(text).toBe(
      '#separator:tab\n#html:false\n#columns:Front\tBack\tPronunciation\tGender\tExample\n' + 'cat\tchat\t/ʃa/\tm\tLe chat dort.\n' + 'dog\tchien\t\t\t\n',
    );
  });

  it('quotes fields holding a tab, a line break or a quote, and a first field starting with #', () => {
    const text = writeAnki([card('1', 'a\tb', 'say "hi"', { example: 'one\ntwo' }), card('2', '#1', 'first')]);
    const lines = text.split('\n');
    expect(lines[3]).toBe('"a\tb"\t"say ""hi"""\t\t\t"one');
    expect(lines[4]).toBe('two"');
    expect(lines[5]).toBe('"#1"\tfirst\t\t\t');
  });

  it('adds a Tags column, named in the header, only when a card has tags', () => {
    const text = writeAnki([card('1', 'cat', 'chat', { tags: ['animals', 'nouns'] }), card('2', 'dog', 'chien')]);
    expect(text).toBe(
      '#separator:tab\n#html:false\n#columns:Front\tBack\tPronunciation\tGender\tExample\tTags\n#tags column:6\n' +
        'cat\tchat\t\t\t\tanimals nouns\n' +
        'dog\tchien\t\t\t\t\n',
    );
    expect(readAnki(text).cards.map((c) => c.tags)).toEqual([['animals', 'nouns'], []]);
  });

  it('reads back exactly the deck’s cards', () => {
    const cards = [
      card('1', 'cat', 'chat', { pronunciation: '/ʃa/', gender: 'm', example: 'Le chat dort.' }),
      card('2', 'tab\there', 'quote "q"', { example: 'line one\nline two' }),
      card('3', '#hash', 'semi;colon, comma', { gender: 'f' }),
      card('4', 'ünïcödé', 'ő ű', { pronunciation: '/ø/' }),
    ];
    const result = readAnki(writeAnki(cards));
    expect(result.problems).toEqual([]);
    expect(strip(result.cards)).toEqual(strip(cards));
  });
});

describe('readAnki', () => {
  it('names the separator by keyword or literally', () => {
    expect(separatorFromHeader('tab')).toBe('\t');
    expect(separatorFromHeader('Comma')).toBe(',');
    expect(separatorFromHeader('semicolon')).toBe(';');
    expect(separatorFromHeader('Pipe')).toBe('|');
    expect(separatorFromHeader('space')).toBe(' ');
    expect(separatorFromHeader('~')).toBe('~');
  });

  it('reads the separator, columns in any order and skips comments', () => {
    const text = '#separator:semicolon\n#html:false\n#columns:Back;Front;Example\n# a comment\nchat;cat;Le chat.\n\nchien;dog\n';
    const result = readAnki(text);
    expect(result.cards).toEqual([
      { line: 5, front: 'cat', back: 'chat', pronunciation: '', gender: '', example: 'Le chat.', tags: [] },
      { line: 7, front: 'dog', back: 'chien', pronunciation: '', gender: '', example: '', tags: [] },
    ]);
  });

  it('reads a literal separator and the pipe keyword', () => {
    expect(readAnki('#separator:Pipe\ncat|chat').cards[0]?.back).toBe('chat');
    expect(readAnki('#separator:~~\ncat~~chat~~/ʃa/').cards[0]).toMatchObject({ back: 'chat', pronunciation: '/ʃa/' });
  });

  it('reads columns positionally when the note type names its fields otherwise, skipping guid columns and reading the tags', () => {
    const text = '#separator:tab\n#html:true\n#guid column:1\n#notetype column:2\n#tags column:5\nabc\tBasic\tcat\tchat\tanimals  nouns animals\n';
    expect(readAnki(text).cards).toEqual([{ line: 6, front: 'cat', back: 'chat', pronunciation: '', gender: '', example: '', tags: ['animals', 'nouns'] }]);
  });

  it('keeps a cloze note without a Back Extra', () => {
    const text = '#separator:tab\n#html:true\n#notetype column:1\n#tags column:4\nCloze\tThe {{c1::cat}} sleeps\t\tgrammar\nBasic\tdog\t\t\n';
    const result = readAnki(text);
    expect(result.cards).toEqual([{ line: 5, front: 'The {{c1::cat}} sleeps', back: '', pronunciation: '', gender: '', example: '', tags: ['grammar'] }]);
    expect(result.problems).toHaveLength(1);
  });

  it('turns HTML fields into text when #html:true', () => {
    const text = '#separator:tab\n#html:true\n<b>cat</b>\tle&nbsp;chat<br>the cat &amp; &lt;co&gt;\n';
    expect(readAnki(text).cards[0]).toMatchObject({ front: 'cat', back: 'le chat\nthe cat & <co>' });
    expect(readAnki('#html:false\n<b>x</b>\ty').cards[0]?.front).toBe('<b>x</b>');
  });

  it('decodes numeric entities', () => {
    expect(htmlToText('&#233;t&#xE9; &#39;x&#39; &unknown;')).toBe("été 'x' &unknown;");
  });

  it('reads ragged rows and reports rows without a back by line', () => {
    const result = readAnki('#separator:tab\ncat\tchat\tp\tm\tex\textra\ndog\nfish\tpoisson');
    expect(result.cards.map((c) => c.front)).toEqual(['cat', 'fish']);
    expect(result.problems).toEqual([{ line: 3, message: 'only one field was found, so there is no back; the row is skipped' }]);
  });

  it('reports an unclosed quote with its line', () => {
    expect(() => readAnki('#separator:tab\n#html:false\ncat\tchat\n"dog\tchien\n')).toThrow('Line 4: a quoted field is not closed');
  });

  it('recognises Anki text by its header', () => {
    expect(looksLikeAnki('#separator:tab\na\tb')).toBe(true);
    expect(looksLikeAnki('\ufeff#html:false\na\tb')).toBe(true);
    expect(looksLikeAnki('a\tb')).toBe(false);
  });

  it('reads text without headers as tab-separated, with a header row of column names', () => {
    expect(readAnki('Back\tFront\nchat\tcat').cards[0]).toMatchObject({ front: 'cat', back: 'chat', line: 2 });
  });
});

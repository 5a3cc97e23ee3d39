import { describe, expect, it } from 'vitest';
import { detectDelimiter, ImportError, quoteField, stripBom, tokenize } from './delimited';

describe('tokenize', () => {
  it('splits records and fields and keeps each record’s line', () => {
    expect(tokenize('a,b\nc,d\n', ',')).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['c', 'd'] },
    ]);
  });

  it('reads quoted fields holding the delimiter, doubled quotes and line breaks', () => {
    const rows = tokenize('"a,b","say ""hi""","two\nlines"\nnext,row', ',');
    expect(rows).toEqual([
      { line: 1, fields: ['a,b', 'say "hi"', 'two\nlines'] },
      { line: 3, fields: ['next', 'row'] },
    ]);
  });

  it('accepts CRLF and CR line ends, also inside quotes (as \\n)', () => {
    expect(tokenize('a;"b\r\nc"\r\nd;e\rf;g', ';')).toEqual([
      { line: 1, fields: ['a', 'b\nc'] },
      { line: 3, fields: ['d', 'e'] },
      { line: 4, fields: ['f', 'g'] },
    ]);
  });

  it('skips blank lines but counts them', () => {
    expect(tokenize('\n\na\tb\n   \nc\td', '\t')).toEqual([
      { line: 3, fields: ['a', 'b'] },
      { line: 5, fields: ['c', 'd'] },
    ]);
  });

  it('keeps empty fields and ragged rows as they are', () => {
    expect(tokenize('a,,c\nd\ne,f,g,h', ',').map((row) => row.fields)).toEqual([['a', '', 'c'], ['d'], ['e', 'f', 'g', 'h']]);
  });

  it('skips comment lines when asked, but not a quoted field starting with #', () => {
    const rows = tokenize('#note\n"#tag"\tx\n#more\ny\tz', '\t', { comment: '#' });
    expect(rows).toEqual([
      { line: 2, fields: ['#tag', 'x'] },
      { line: 4, fields: ['y', 'z'] },
    ]);
  });

  it('honours a multi-character delimiter and a first line offset', () => {
    expect(tokenize('a::b::c', '::', { firstLine: 4 })).toEqual([{ line: 4, fields: ['a', 'b', 'c'] }]);
  });

  it('keeps a quote in the middle of an unquoted field literally', () => {
    expect(tokenize('5" nail,clou', ',')[0]?.fields).toEqual(['5" nail', 'clou']);
  });

  it('reports an unclosed quote with the line it opened on', () => {
    expect(() => tokenize('a,b\nc,d\n"open,e\nf,g', ',')).toThrow(new ImportError('a quoted field is not closed (a " is missing)', 3));
    expect(() => tokenize('a,b\nc,d\n"open,e', ',')).toThrow('Line 3: a quoted field is not closed');
  });

  it('drops a UTF-8 BOM', () => {
    expect(stripBom('\ufeffa')).toBe('a');
    expect(tokenize('\ufeffcat,chat', ',')[0]?.fields).toEqual(['cat', 'chat']);
  });

  it('refuses an empty delimiter', () => {
    expect(() => tokenize('a', '')).toThrow(ImportError);
  });
});

describe('quoteField', () => {
  it('quotes only what needs it, doubling quotes', () => {
    expect(quoteField('plain', '\t')).toBe('plain');
    expect(quoteField('a\tb', '\t')).toBe('"a\tb"');
    expect(quoteField('a\nb', '\t')).toBe('"a\nb"');
    expect(quoteField('say "hi"', '\t')).toBe('"say ""hi"""');
    expect(quoteField('a,b', '\t')).toBe('a,b');
    expect(quoteField('#x', '\t', (v) => v.startsWith('#'))).toBe('"#x"');
  });

  it('round-trips through tokenize', () => {
    const values = ['a\tb', 'x "y" z', 'one\ntwo', '', ' spaced '];
    const line = values.map((v) => quoteField(v, '\t')).join('\t');
    expect(tokenize(line, '\t')[0]?.fields).toEqual(values);
  });
});

describe('detectDelimiter', () => {
  it('finds tab, semicolon and comma', () => {
    expect(detectDelimiter('cat\tchat\ndog\tchien')).toBe('\t');
    expect(detectDelimiter('kat;chat\nhond;chien, le')).toBe(';');
    expect(detectDelimiter('cat,chat\ndog,chien')).toBe(',');
  });

  it('prefers the delimiter found on every line over one that is merely frequent', () => {
    expect(detectDelimiter('a;b, c, d, e\nf;g\nh;i')).toBe(';');
  });

  it('ignores delimiters inside quotes and the BOM', () => {
    expect(detectDelimiter('\ufeff"a,b,c";d\n"e,f";g')).toBe(';');
  });

  it('falls back to tab for a single column', () => {
    expect(detectDelimiter('just words')).toBe('\t');
  });
});

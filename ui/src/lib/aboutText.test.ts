import { describe, expect, it } from 'vitest';
import { characterCount, parseAboutText, trimAddress } from './aboutText';

describe('parseAboutText', () => {
  it('splits paragraphs at blank lines and keeps single line ends as breaks', () => {
    expect(parseAboutText('One\r\ntwo\n\n \n\nThree\n')).toEqual([
      [{ kind: 'text', text: 'One' }, { kind: 'break' }, { kind: 'text', text: 'two' }],
      [{ kind: 'text', text: 'Three' }],
    ]);
    expect(parseAboutText('  \n\n ')).toEqual([]);
  });

  it('makes http and https addresses links, leaving the sentence around them as text', () => {
    expect(parseAboutText('See https://example.org/a?b=1, or (http://x.test/y).')).toEqual([
      [
        { kind: 'text', text: 'See ' },
        { kind: 'link', href: 'https://example.org/a?b=1', text: 'https://example.org/a?b=1' },
        { kind: 'text', text: ', or (' },
        { kind: 'link', href: 'http://x.test/y', text: 'http://x.test/y' },
        { kind: 'text', text: ').' },
      ],
    ]);
  });

  it('never makes a link of anything but http(s), and keeps markup as text', () => {
    const [paragraph] = parseAboutText('javascript:alert(1) <a href="https://evil.test">x</a> ftp://a.test');
    expect(paragraph?.filter((p) => p.kind === 'link')).toEqual([{ kind: 'link', href: 'https://evil.test/', text: 'https://evil.test' }]);
    expect(paragraph?.map((p) => (p.kind === 'break' ? '\n' : p.text)).join('')).toBe('javascript:alert(1) <a href="https://evil.test">x</a> ftp://a.test');
    // "https://" alone has no host: text.
    expect(parseAboutText('https:// and more')).toEqual([[{ kind: 'text', text: 'https:// and more' }]]);
  });
});

describe('trimAddress', () => {
  it('drops sentence punctuation and unmatched brackets, keeps brackets the address opened', () => {
    expect(trimAddress('https://a.test/x.')).toBe('https://a.test/x');
    expect(trimAddress('https://a.test/x).')).toBe('https://a.test/x');
    expect(trimAddress('https://en.wikipedia.org/wiki/Ada_(language)')).toBe('https://en.wikipedia.org/wiki/Ada_(language)');
    expect(trimAddress('https://a.test/?q=1!?')).toBe('https://a.test/?q=1');
  });
});

describe('characterCount', () => {
  it('counts code points of the trimmed text with line ends as one', () => {
    expect(characterCount(' 😀é\r\nx ')).toBe(4);
  });
});

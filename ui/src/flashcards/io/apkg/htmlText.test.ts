// Field HTML to plain text: examples of what Anki's editor writes, and properties over generated
// markup: no markup survives, and no text is lost.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeEntities, fieldToText, type FieldMedia } from './htmlText';

describe('fieldToText', () => {
  it.each([
    ['<b>hola</b> &amp; <i>adiós</i>', 'hola & adiós'],
    ['one<br>two<br/>three', 'one\ntwo\nthree'],
    ['<div>first</div><div>second</div>', 'first\nsecond'],
    ['a &lt;b&gt; &quot;c&quot; &#233;&#xE9; &nbsp;d', 'a <b> "c" éé d'],
    ['<script>alert(1)</script>safe<style>p{}</style>', 'safe'],
    ['  spaced \n\n  out  ', 'spaced out'],
    ['<!-- note -->kept', 'kept'],
    ['x &unknown; y', 'x &unknown; y'],
    ['{{c1::Paris::city}} <b>is</b> big', '{{c1::Paris::city}} is big'],
    ['<table><tr><td>a</td><td>b</td></tr></table>', 'a b'],
  ])('%j reads %j', (html, text) => {
    expect(fieldToText(html)).toBe(text);
  });

  it('lists images and sounds, leaving them out of the text', () => {
    const media: FieldMedia = { images: [], sounds: [] };
    expect(fieldToText('cat <img src="cat.png"> [sound:cat.mp3] <img src=\'a&amp;b.jpg\'>', media)).toBe('cat');
    expect(media).toEqual({ images: ['cat.png', 'a&b.jpg'], sounds: ['cat.mp3'] });
  });
});

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const TAGS = ['b', 'i', 'u', 'span', 'div', 'p', 'font', 'sub', 'sup', 'li'];
const words = fc.array(
  fc.string({ minLength: 1, maxLength: 8 }).filter((word) => word.trim() === word && !/\s|\[/.test(word)),
  { minLength: 1, maxLength: 8 },
);

describe('fieldToText properties', () => {
  it('keeps every word, in order, whatever markup wraps them', () => {
    fc.assert(
      fc.property(
        words,
        fc.array(fc.constantFrom(...TAGS), { minLength: 8, maxLength: 8 }),
        fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
        (list, tags, breaks) => {
          const html = list
            .map((word, index) => `<${tags[index] ?? 'b'} class="x">${escape(word)}</${tags[index] ?? 'b'}>${breaks[index] ? '<br>' : ' '}`)
            .join('');
          const text = fieldToText(html);
          expect(text.split(/\s+/).filter(Boolean)).toEqual(list);
        },
      ),
    );
  });

  it('leaves no markup of the input: every "<" in the text was an escaped one', () => {
    fc.assert(
      fc.property(words, fc.array(fc.constantFrom(...TAGS, 'script', 'style', 'img', 'br'), { minLength: 8, maxLength: 8 }), (list, tags) => {
        const html = list.map((word, index) => `<${tags[index] ?? 'b'} onclick="x()">${escape(word)}</${tags[index] ?? 'b'}>`).join('');
        const text = fieldToText(html);
        const escapedOpeners = list.join('').split('<').length - 1;
        expect(text.split('<').length - 1).toBeLessThanOrEqual(escapedOpeners);
        expect(text).not.toContain('onclick');
      }),
    );
  });

  it('decodes what escaping encoded', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        expect(decodeEntities(escape(text))).toBe(text);
      }),
    );
  });
});

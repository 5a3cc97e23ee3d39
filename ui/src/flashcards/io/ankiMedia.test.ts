import { describe, expect, it } from 'vitest';
import { emptyCard, type Card } from '../deck';
import type { MediaRef } from '../media/ref';
import { readAnki, writeAnki } from './anki';
import { ankiFileNames, mediaMarkup, safeAnkiName } from './ankiMedia';

const ref = (digit: string, name: string, kind: MediaRef['kind'], field: MediaRef['field']): MediaRef => ({ hash: digit.repeat(64), name, kind, field });
const card = (id: string, fields: Partial<Card>): Card => ({ ...emptyCard(id), ...fields });

describe('Anki media file names', () => {
  it('makes names safe for the media folder and for [sound:…]', () => {
    expect(safeAnkiName('hund.mp3')).toBe('hund.mp3');
    expect(safeAnkiName('Hund im Schnee.webp')).toBe('Hund im Schnee.webp');
    expect(safeAnkiName('../etc/passwd')).toBe('_etc_passwd');
    expect(safeAnkiName('a[1]:b?.ogg')).toBe('a_1__b_.ogg');
    expect(safeAnkiName('   ')).toBe('file');
    // Umlauts stay, composed as Anki keeps them; the length stays within 120 bytes, extension kept.
    expect(safeAnkiName('Mu\u0308nchen.mp3')).toBe('München.mp3');
    const long = safeAnkiName(`${'ä'.repeat(100)}.webp`);
    expect(new TextEncoder().encode(long).length).toBeLessThanOrEqual(120);
    expect(long.endsWith('.webp')).toBe(true);
  });

  it('gives each file one unique name, whatever the case', () => {
    const names = ankiFileNames([
      card('1', { media: [ref('a', 'hund.mp3', 'sound', 'back'), ref('b', 'Hund.mp3', 'sound', 'back')] }),
      card('2', { media: [ref('a', 'hund.mp3', 'sound', 'front'), ref('c', 'hund.mp3', 'sound', 'back')] }),
    ]);
    expect([...names.values()]).toEqual(['hund.mp3', 'Hund-2.mp3', 'hund-3.mp3']);
    expect(names.get('a'.repeat(64))).toBe('hund.mp3');
  });

  it('writes pictures as <img src> and sounds as [sound:]', () => {
    const refs = [ref('a', 'x "y".webp', 'image', 'front'), ref('b', 'z.mp3', 'sound', 'front')];
    expect(mediaMarkup(refs, ankiFileNames([card('1', { media: refs })]))).toBe('<img src="x _y_.webp"> [sound:z.mp3]');
  });
});

describe('Anki text with media', () => {
  it('names the files in the fields, and writes HTML when a card has a picture', () => {
    const cards = [
      card('1', { front: 'dog & cat', back: 'Hund\nund Katze', media: [ref('a', 'hund.webp', 'image', 'front'), ref('b', 'hund.mp3', 'sound', 'back')] }),
      card('2', { front: '<b>', back: 'x', media: [] }),
    ];
    const text = writeAnki(cards);
    expect(text.split('\n')).toEqual([
      '#separator:tab',
      '#html:true',
      '#columns:Front\tBack\tPronunciation\tGender\tExample',
      // A field with quotes is quoted, its quotes doubled, as Anki's own export writes it.
      '"dog &amp; cat <img src=""hund.webp"">"\tHund<br>und Katze [sound:hund.mp3]\t\t\t',
      '&lt;b&gt;\tx\t\t\t',
      '',
    ]);
    // Read back as Anki would show the texts.
    expect(readAnki(text).cards.map((c) => [c.front, c.back])).toEqual([
      ['dog & cat', 'Hund\nund Katze [sound:hund.mp3]'],
      ['<b>', 'x'],
    ]);
  });

  it('stays plain text with sounds only, as before', () => {
    const text = writeAnki([card('1', { front: 'a<b', back: 'c', media: [ref('b', 'c.mp3', 'sound', 'back')] })]);
    expect(text).toBe('#separator:tab\n#html:false\n#columns:Front\tBack\tPronunciation\tGender\tExample\na<b\tc [sound:c.mp3]\t\t\t\n');
  });
});

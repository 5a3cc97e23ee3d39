import { describe, expect, it } from 'vitest';
import { aboutCount, fieldsOf, parseOwnerSite, profileOf, isLinkAddress, sameFields, validateFields, type SiteFields } from './siteForm';

const fields = (over: Partial<SiteFields> = {}): SiteFields => ({ name: 'Ada', about: '', spotifyUrl: '', beehiveUrl: '', ...over });

describe('validateFields', () => {
  it('takes a name, an About text within its length and blank or http(s) links', () => {
    expect(validateFields(fields({ about: 'é'.repeat(40), spotifyUrl: ' https://open.spotify.com/u/ada ' }), 40)).toEqual({});
  });

  it('names each field the server would refuse', () => {
    expect(validateFields(fields({ name: '  ', about: 'x'.repeat(41), spotifyUrl: 'javascript:alert(1)', beehiveUrl: 'example.org' }), 40)).toEqual({
      name: 'Write the name the landing page shows.',
      about: 'The About text has 41 characters; at most 40 fit.',
      spotifyUrl: 'The Spotify link must be an address beginning with https:// or http://, or left empty.',
      beehiveUrl: 'The Beehive link must be an address beginning with https:// or http://, or left empty.',
    });
    expect(validateFields(fields({ name: 'x'.repeat(101) }), 40).name).toBe('The name is longer than 100 characters.');
  });
});

describe('isLinkAddress', () => {
  it('wants a host and no white space', () => {
    expect(isLinkAddress('https://a.test')).toBe(true);
    expect(isLinkAddress('HTTP://a.test/x?y')).toBe(true);
    expect(isLinkAddress('https://')).toBe(false);
    expect(isLinkAddress('https://a.test/x y')).toBe(false);
    expect(isLinkAddress('ftp://a.test')).toBe(false);
  });
});

describe('the form and the server answer', () => {
  const answer = parseOwnerSite({
    name: 'Ada',
    about: null,
    spotifyUrl: 'https://s.test',
    beehiveUrl: null,
    avatarUrl: '/avatar?v=1',
    customTexts: true,
    customAvatar: false,
    defaults: { name: 'Flag', spotifyUrl: null, beehiveUrl: null },
    maxAboutChars: 4000,
    maxPictureBytes: 524288,
  });

  it('reads the answer and fills the fields, blank for what is unset', () => {
    expect(answer).not.toBeNull();
    if (!answer) return;
    expect(fieldsOf(answer)).toEqual({ name: 'Ada', about: '', spotifyUrl: 'https://s.test', beehiveUrl: '' });
    expect(answer.defaults.name).toBe('Flag');
    expect(profileOf(answer, '1.2.3')).toEqual({
      name: 'Ada',
      avatarUrl: '/avatar?v=1',
      about: null,
      spotifyUrl: 'https://s.test',
      beehiveUrl: null,
      version: '1.2.3',
    });
    expect(parseOwnerSite({ name: 'x' })).toBeNull();
  });

  it('sees no change in white space around a field', () => {
    expect(sameFields(fields({ about: ' Hi \n' }), fields({ about: 'Hi' }))).toBe(true);
    expect(sameFields(fields(), fields({ beehiveUrl: 'https://b.test' }))).toBe(false);
  });

  it('counts the About text as the server does', () => {
    expect(aboutCount('😀 ok', 4000)).toBe('4 of 4,000 characters');
  });
});

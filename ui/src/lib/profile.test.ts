import { describe, expect, it } from 'vitest';
import { parseProfile } from './profile';

describe('parseProfile', () => {
  it('keeps the fields of a valid profile', () => {
    expect(
      parseProfile({
        name: 'Ada',
        avatarUrl: '/avatar?v=1',
        about: 'Hello\n\nhttps://example.org',
        spotifyUrl: 'https://open.spotify.com/x',
        beehiveUrl: null,
        version: '0.1.0',
      }),
    ).toEqual({
      name: 'Ada',
      avatarUrl: '/avatar?v=1',
      about: 'Hello\n\nhttps://example.org',
      spotifyUrl: 'https://open.spotify.com/x',
      beehiveUrl: null,
      version: '0.1.0',
    });
  });

  it('treats empty link addresses as unset', () => {
    expect(parseProfile({ name: 'Ada', spotifyUrl: '  ' })?.spotifyUrl).toBeNull();
    expect(parseProfile({ name: 'Ada', about: 7 })?.about).toBeNull();
  });

  it('rejects values without a name', () => {
    expect(parseProfile(null)).toBeNull();
    expect(parseProfile([])).toBeNull();
    expect(parseProfile({ avatarUrl: '/a' })).toBeNull();
  });
});

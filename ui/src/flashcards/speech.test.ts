import { describe, expect, it } from 'vitest';
import { pickVoice, SPEECH_TAGS, type VoiceLike } from './speech';

const voice = (lang: string, name = lang, localService = true, isDefault = false): VoiceLike => ({ lang, name, localService, default: isDefault });

describe('pickVoice', () => {
  it('maps the deck languages to their tags', () => {
    expect(SPEECH_TAGS).toEqual({ en: 'en-GB', nl: 'nl-NL', fr: 'fr-FR', hu: 'hu-HU' });
  });

  it('prefers the exact tag over another region', () => {
    const voices = [voice('en-US', 'US'), voice('en-GB', 'GB'), voice('fr-CA', 'CA')];
    expect(pickVoice(voices, 'en')?.name).toBe('GB');
    expect(pickVoice(voices, 'fr')?.name).toBe('CA');
  });

  it('returns null when no voice speaks the language', () => {
    expect(pickVoice([voice('en-GB'), voice('de-DE')], 'hu')).toBeNull();
    expect(pickVoice([], 'nl')).toBeNull();
    // 'enx' is not English.
    expect(pickVoice([voice('enx-XX')], 'en')).toBeNull();
  });

  it('accepts underscores, any case and a bare language tag', () => {
    expect(pickVoice([voice('NL_nl', 'nl')], 'nl')?.name).toBe('nl');
    expect(pickVoice([voice('hu', 'hu')], 'hu')?.name).toBe('hu');
  });

  it('prefers a local voice, then the default one', () => {
    const voices = [voice('fr-FR', 'remote', false, true), voice('fr-FR', 'local'), voice('fr-FR', 'local default', true, true)];
    expect(pickVoice(voices, 'fr')?.name).toBe('local default');
    expect(pickVoice(voices.slice(0, 2), 'fr')?.name).toBe('local');
  });
});

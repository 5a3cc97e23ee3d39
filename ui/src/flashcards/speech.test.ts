import { describe, expect, it } from 'vitest';
import { noVoiceMessage, pickVoice, SPEECH_TAGS, speechTag, type VoiceLike } from './speech';

const voice = (lang: string, name = lang, localService = true, isDefault = false): VoiceLike => ({ lang, name, localService, default: isDefault });

describe('pickVoice', () => {
  it('maps the spec’s languages to their tags and any other tag to itself', () => {
    expect(SPEECH_TAGS).toEqual({ en: 'en-GB', nl: 'nl-NL', fr: 'fr-FR', hu: 'hu-HU' });
    expect(speechTag('en')).toBe('en-GB');
    expect(speechTag('de')).toBe('de');
    expect(speechTag('pt-BR')).toBe('pt-BR');
  });

  it('prefers the exact tag over another region', () => {
    const voices = [voice('en-US', 'US'), voice('en-GB', 'GB'), voice('fr-CA', 'CA'), voice('pt-PT', 'PT'), voice('pt-BR', 'BR')];
    expect(pickVoice(voices, 'en')?.name).toBe('GB');
    expect(pickVoice(voices, 'fr')?.name).toBe('CA');
    expect(pickVoice(voices, 'pt-BR')?.name).toBe('BR');
    expect(pickVoice(voices, 'pt-PT')?.name).toBe('PT');
  });

  it('finds a voice for languages beyond the spec’s four, in any region', () => {
    const voices = [voice('de-DE', 'Anna'), voice('ja-JP', 'Kyoko'), voice('en-GB')];
    expect(pickVoice(voices, 'de')?.name).toBe('Anna');
    expect(pickVoice(voices, 'ja')?.name).toBe('Kyoko');
    expect(pickVoice(voices, 'ko')).toBeNull();
  });

  it('knows the codes some engines use for the same language', () => {
    expect(pickVoice([voice('nb-NO', 'Nora')], 'no')?.name).toBe('Nora');
    expect(pickVoice([voice('iw-IL', 'Carmit')], 'he')?.name).toBe('Carmit');
    expect(pickVoice([voice('in-ID', 'Damayanti')], 'id')?.name).toBe('Damayanti');
    expect(pickVoice([voice('fil-PH', 'Angelo')], 'tl')?.name).toBe('Angelo');
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
    expect(pickVoice([voice('ja_JP', 'jp')], 'JA')?.name).toBe('jp');
  });

  it('prefers a local voice, then the default one', () => {
    const voices = [voice('fr-FR', 'remote', false, true), voice('fr-FR', 'local'), voice('fr-FR', 'local default', true, true)];
    expect(pickVoice(voices, 'fr')?.name).toBe('local default');
    expect(pickVoice(voices.slice(0, 2), 'fr')?.name).toBe('local');
  });
});

describe('noVoiceMessage', () => {
  it('names the language in words', () => {
    expect(noVoiceMessage('ja')).toBe('No Japanese voice on this device');
    expect(noVoiceMessage('hu')).toBe('No Hungarian voice on this device');
    expect(noVoiceMessage('pt-BR')).toBe('No Brazilian Portuguese voice on this device');
  });
});

// The site editor on /owner: the server's view of the site (GET /api/owner's `site`, and every
// answer of the editor's routes), the fields as typed, what the server would refuse said before
// sending (the same rules as src/site/texts.rs, which decides), and whether anything changed.
import { characterCount } from '../lib/aboutText';
import { isRecord } from '../lib/json';
import type { Profile } from '../lib/profile';

export interface OwnerSite {
  name: string;
  about: string | null;
  spotifyUrl: string | null;
  beehiveUrl: string | null;
  avatarUrl: string;
  /** The owner saved texts of their own (else the flags' show). */
  customTexts: boolean;
  /** The owner uploaded the picture (else the flag's or the built-in one shows). */
  customAvatar: boolean;
  defaults: { name: string; spotifyUrl: string | null; beehiveUrl: string | null };
  maxAboutChars: number;
  maxPictureBytes: number;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : null);
const count = (value: unknown, fallback: number): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : fallback);

/** Reads an answer; null when it has not the shape. */
export function parseOwnerSite(value: unknown): OwnerSite | null {
  if (!isRecord(value) || typeof value.name !== 'string' || typeof value.avatarUrl !== 'string') return null;
  const defaults = isRecord(value.defaults) ? value.defaults : {};
  return {
    name: value.name,
    about: text(value.about),
    spotifyUrl: text(value.spotifyUrl),
    beehiveUrl: text(value.beehiveUrl),
    avatarUrl: value.avatarUrl,
    customTexts: value.customTexts === true,
    customAvatar: value.customAvatar === true,
    defaults: {
      name: typeof defaults.name === 'string' ? defaults.name : '',
      spotifyUrl: text(defaults.spotifyUrl),
      beehiveUrl: text(defaults.beehiveUrl),
    },
    maxAboutChars: count(value.maxAboutChars, 4000),
    maxPictureBytes: count(value.maxPictureBytes, 512 * 1024),
  };
}

/** The profile the app shows after a save (`version` is the server's, unchanged by it). */
export function profileOf(site: OwnerSite, version: string): Profile {
  return {
    name: site.name,
    avatarUrl: site.avatarUrl,
    about: site.about,
    spotifyUrl: site.spotifyUrl,
    beehiveUrl: site.beehiveUrl,
    version,
  };
}

export interface SiteFields {
  name: string;
  about: string;
  spotifyUrl: string;
  beehiveUrl: string;
}

export type FieldName = keyof SiteFields;
export type FieldErrors = Partial<Record<FieldName, string>>;

/** The name's length, as `--owner-name` takes it. */
export const MAX_NAME_CHARS = 100;

export const FIELD_NAMES: readonly FieldName[] = ['name', 'about', 'spotifyUrl', 'beehiveUrl'];

export function isFieldName(value: string | null): value is FieldName {
  return value !== null && (FIELD_NAMES as readonly string[]).includes(value);
}

export function fieldsOf(site: OwnerSite): SiteFields {
  return { name: site.name, about: site.about ?? '', spotifyUrl: site.spotifyUrl ?? '', beehiveUrl: site.beehiveUrl ?? '' };
}

/** An http:// or https:// address with a host and no white space, as the flags take it. */
export function isLinkAddress(value: string): boolean {
  const address = value.trim();
  if (!/^https?:\/\/[^/?#\s]/i.test(address) || /\s/.test(address)) return false;
  try {
    new URL(address);
    return true;
  } catch {
    return false;
  }
}

function linkError(value: string, label: string): string | undefined {
  if (value.trim() === '' || isLinkAddress(value)) return undefined;
  return `The ${label} link must be an address beginning with https:// or http://, or left empty.`;
}

export function validateFields(fields: SiteFields, maxAboutChars: number): FieldErrors {
  const errors: FieldErrors = {};
  const name = fields.name.trim();
  if (name === '') errors.name = 'Write the name the landing page shows.';
  else if (Array.from(name).length > MAX_NAME_CHARS) errors.name = `The name is longer than ${MAX_NAME_CHARS} characters.`;
  const about = characterCount(fields.about);
  if (about > maxAboutChars) errors.about = `The About text has ${about.toLocaleString('en')} characters; at most ${maxAboutChars.toLocaleString('en')} fit.`;
  const spotify = linkError(fields.spotifyUrl, 'Spotify');
  if (spotify) errors.spotifyUrl = spotify;
  const beehive = linkError(fields.beehiveUrl, 'Beehive');
  if (beehive) errors.beehiveUrl = beehive;
  return errors;
}

/** Whether the fields say what the site shows (blank and missing are the same). */
export function sameFields(a: SiteFields, b: SiteFields): boolean {
  return FIELD_NAMES.every((field) => a[field].trim() === b[field].trim());
}

/** "123 of 4,000 characters". */
export function aboutCount(about: string, maxAboutChars: number): string {
  return `${characterCount(about).toLocaleString('en')} of ${maxAboutChars.toLocaleString('en')} characters`;
}

// The owner's profile. The server writes it into index.html as a JSON data block, so it is
// known before the first render; the dev server has no such block and falls back to /api/site.
// Parsed by hand rather than with a schema (lib/schema.ts): the landing page needs it, and the
// validation library would add 2 kB (gzip) to its first download.
import { isRecord, parseJsonText } from './json';

export interface Profile {
  name: string;
  avatarUrl: string;
  /** The owner's About text (lib/aboutText.ts reads it); null: the built-in sentence. */
  about: string | null;
  spotifyUrl: string | null;
  beehiveUrl: string | null;
  version: string;
}

const FALLBACK: Profile = {
  name: '',
  avatarUrl: '/avatar',
  about: null,
  spotifyUrl: null,
  beehiveUrl: null,
  version: '',
};

function optionalString(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

/** Validates an untrusted profile object; returns null when it has not the shape. */
export function parseProfile(value: unknown): Profile | null {
  if (!isRecord(value) || typeof value.name !== 'string') return null;
  return {
    name: value.name,
    avatarUrl: typeof value.avatarUrl === 'string' ? value.avatarUrl : FALLBACK.avatarUrl,
    about: optionalString(value.about),
    spotifyUrl: optionalString(value.spotifyUrl),
    beehiveUrl: optionalString(value.beehiveUrl),
    version: typeof value.version === 'string' ? value.version : '',
  };
}

/** The profile embedded in the page, if any. */
export function readEmbeddedProfile(doc: Document): Profile | null {
  return parseProfile(parseJsonText(doc.getElementById('hearth-profile')?.textContent));
}

/** Fetches the profile from the server (used only when the page carries none). */
export async function fetchProfile(): Promise<Profile | null> {
  try {
    const response = await fetch('/api/site', { headers: { Accept: 'application/json' } });
    if (!response.ok) return null;
    return parseProfile(await response.json());
  } catch {
    return null;
  }
}

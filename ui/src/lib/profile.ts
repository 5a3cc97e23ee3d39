// The owner's profile. The server writes it into index.html as a JSON data block, so it is
// known before the first render; the dev server has no such block and falls back to /api/site.
import * as v from 'valibot';
import { filled, orNull, parseOrNull, record, text } from './schema';

const ProfileSchema = record({
  name: v.string(),
  avatarUrl: v.fallback(v.string(), '/avatar'),
  /** Empty addresses count as unset. */
  spotifyUrl: orNull(filled),
  beehiveUrl: orNull(filled),
  version: text,
});

export type Profile = v.InferOutput<typeof ProfileSchema>;

/** Validates an untrusted profile object; returns null when it has not the shape. */
export function parseProfile(value: unknown): Profile | null {
  return parseOrNull(ProfileSchema, value);
}

/** The profile embedded in the page, if any. */
export function readEmbeddedProfile(doc: Document): Profile | null {
  const block = doc.getElementById('hearth-profile');
  if (!block?.textContent) return null;
  try {
    return parseProfile(JSON.parse(block.textContent));
  } catch {
    return null;
  }
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

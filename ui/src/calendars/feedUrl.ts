// What the calendar tool says about a feed address before any request: whether it can be one at
// all (SPEC.md 5: non-empty; http, https or webcal), and how the list shows it without leaking
// the secret tokens that private feed addresses carry in their query.

import { maskFeedUrl } from '../lib/feedAddress';

export type UrlCheck = { ok: true; url: string } | { ok: false; reason: string };

const SCHEMES = ['http:', 'https:', 'webcal:', 'webcals:'];

/** Checks a typed subscription address: syntax, scheme and host, with the reason in words. */
export function checkFeedUrl(input: string): UrlCheck {
  const url = input.trim();
  if (url === '') return { ok: false, reason: 'The address is empty.' };
  if (!/^[a-z][a-z0-9+.-]*:/i.test(url)) {
    return { ok: false, reason: 'The address needs to start with https:// or webcal:// (copy it from your calendar app).' };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'This is not a web address: check it for spaces or missing parts.' };
  }
  if (!SCHEMES.includes(parsed.protocol.toLowerCase())) {
    return { ok: false, reason: `Only http, https and webcal addresses can be subscribed to, not ${parsed.protocol}` };
  }
  if (parsed.hostname === '') return { ok: false, reason: 'The address names no server (nothing after //).' };
  return { ok: true, url };
}

// Masking is shared with the health words and the owner page (lib/feedAddress.ts).
export { maskFeedUrl };

/** Whether the list hides part of the address (its full form then goes in a title only on demand). */
export function hasSecretParts(input: string): boolean {
  return maskFeedUrl(input) !== input;
}

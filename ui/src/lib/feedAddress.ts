// A feed's address as a screen shows it, without the secret tokens private feed addresses carry
// in their query: the calendar list, a calendar's health and the owner page say it the same way.

const SECRET_MASK = '•••';

/**
 * The address as screens show it: scheme, host and path, and each query value masked (private
 * feeds from Google, Outlook or iCloud put their access token there). User info is dropped too.
 */
export function maskFeedUrl(input: string): string {
  let parsed: URL;
  try {
    parsed = new URL(input);
  } catch {
    return input;
  }
  const query = [...parsed.searchParams.keys()].map((key) => `${key}=${SECRET_MASK}`).join('&');
  const base = `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  return query === '' ? base : `${base}?${query}`;
}

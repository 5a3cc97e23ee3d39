// The calendar tool's words around this site's key (asked for and kept by lib/siteKey.ts, sent as
// X-Publish-Key), and which refusals are about the visitor rather than what they asked for.

/**
 * A refusal about the visitor rather than what they asked for: no key (401) or too many requests
 * from their address (429). The server's message says what to do; no other text should frame it.
 */
export const aboutTheVisitor = (status: number): boolean => status === 401 || status === 429;

export const PUBLISH_KEY_PROMPT = 'This site needs its publish key to read feeds and publish calendars. Publish key:';
export const PUBLISH_KEY_REFUSED_PROMPT = 'That publish key was not accepted. Publish key:';

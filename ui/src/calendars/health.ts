// What the calendar tool adds to the health words of lib/feedHealth.ts: who may ask how a hosted
// calendar is doing, and the quiet note when nobody could tell.

/** Why a check gave no answer, by the HTTP status (0: the server was not reached), in a quiet note. */
export function checkFailureText(status: number): string {
  switch (status) {
    case 0:
      return 'The server could not be reached to check this feed.';
    case 401:
      return "This site's key is needed to check this feed.";
    case 403:
      return 'The server did not accept this browser as the owner of this feed.';
    case 404:
      return 'The server no longer hosts this calendar.';
    default:
      return 'How this feed is doing could not be checked just now.';
  }
}

/**
 * What a check needs: the hosted calendar's edit token, or the site's key alone. Null when the
 * calendar is not hosted or neither is at hand: then nothing is asked of the server.
 */
export function healthAccess(
  hosting: { hostedUrl?: string; editToken?: string },
  siteKey: string | null,
): { editToken: string | null; key: string | null } | null {
  if (!hosting.hostedUrl) return null;
  const editToken = hosting.editToken ?? null;
  if (editToken === null && siteKey === null) return null;
  return { editToken, key: siteKey };
}

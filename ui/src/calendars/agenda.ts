// The agenda page of a hosted calendar (`"agenda": true`): its address beside the feed's, the
// <iframe> snippet that embeds it in another site, whether the published calendar has one; and
// Google's slow refresh, said in words, with the second address that makes Google fetch at once
// (the newest one made, read back from the calendar's status, stays shown after a reload).
import type { HealthView } from './useCalendarHealth';

/** The agenda page's address: the hosted feed's without `.ics`. */
export function agendaUrl(hostedUrl: string): string {
  return hostedUrl.replace(/\.ics$/i, '');
}

/** The JSON of the same events, for a site that draws its own. */
export function agendaJsonUrl(hostedUrl: string): string {
  return `${agendaUrl(hostedUrl)}.json`;
}

function attribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** What an owner pastes into their site to show the agenda. */
export function iframeSnippet(hostedUrl: string, name: string): string {
  return `<iframe src="${attribute(agendaUrl(hostedUrl))}" title="${attribute(name.trim() || 'Calendar')}" width="100%" height="600" style="border:0" loading="lazy" allow="clipboard-write"></iframe>`;
}

/** Whether the last Build & Host sent `"agenda": true` (its fingerprint is the JSON it sent). */
export function agendaPublished(publishedConfig: string | undefined): boolean {
  if (!publishedConfig) return false;
  try {
    const sent = JSON.parse(publishedConfig) as { config?: { agenda?: unknown } };
    return sent.config?.agenda === true;
  } catch {
    return false;
  }
}

export const AGENDA_OFF_TEXT = 'Off: the calendar is only a feed for calendar apps.';
export const AGENDA_ON_TEXT =
  'A page of the coming events at the calendar’s address without “.ics”, for visitors and for embedding in your own site, with its events also as JSON. It shows what the hosted feed holds (filters, changes, privacy, window), by day in the calendar’s time zone.';

export const GOOGLE_REFRESH_TEXT =
  'Google Calendar refreshes a subscribed calendar only every 8 to 24 hours, and ignores the refresh hints this feed sends. A new address makes Google fetch the calendar at once; the old address keeps working for everyone subscribed to it.';
export const GOOGLE_STEPS_TEXT = 'In Google Calendar: Other calendars, then “+”, then “From URL”: paste this address, then unsubscribe from the old one.';

export const GOOGLE_NEW_LABEL = 'The new address to give Google';
export const GOOGLE_NEWEST_LABEL = 'The newest address for Google';
export const GOOGLE_LOOKING_TEXT = 'Looking for an address made for Google…';
export const GOOGLE_NONE_TEXT = 'No address for Google has been made for this calendar yet.';
export const GOOGLE_UNKNOWN_TEXT = 'Whether an address for Google was made could not be checked just now.';

/** What the Google section shows in the room it keeps for the address: the address, or a note. */
export type GoogleAddressShown = { kind: 'address'; url: string; label: string } | { kind: 'note'; text: string };

/**
 * The address just made (`made`), else the newest one the calendar's status lists (the health
 * check's answer, `view`; the previous answer while the next is on its way), else why there is none.
 */
export function googleAddressShown(made: string | null, view: HealthView | null): GoogleAddressShown {
  if (made) return { kind: 'address', url: made, label: GOOGLE_NEW_LABEL };
  const result = view === null ? null : view.state === 'done' ? view.result : view.last;
  if (result === null) return { kind: 'note', text: view === null ? GOOGLE_UNKNOWN_TEXT : GOOGLE_LOOKING_TEXT };
  if (result.kind === 'failed') return { kind: 'note', text: GOOGLE_UNKNOWN_TEXT };
  return result.googleAddress ? { kind: 'address', url: result.googleAddress, label: GOOGLE_NEWEST_LABEL } : { kind: 'note', text: GOOGLE_NONE_TEXT };
}

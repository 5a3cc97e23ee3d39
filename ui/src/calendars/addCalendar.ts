// Add (SPEC.md 4): a prompt for the subscription URL (cancel or empty aborts), then one for the
// name (default 'New Calendar'); the new record opens in the editor, unsaved until Save. An
// address that cannot be a feed is asked for again, with the reason, before the editor opens.
import { DEFAULT_NAME, editorPath, newCalendarId } from './calendar';
import { checkFeedUrl } from './feedUrl';

export type Ask = (message: string, defaultValue?: string) => string | null;

const browserAsk: Ask = (message, defaultValue) => window.prompt(message, defaultValue);

export const URL_PROMPT = 'Subscription URL of the calendar (https:// or webcal://):';
export const NAME_PROMPT = 'Name of the calendar:';

/** The prompt again after an address that cannot be a feed: the reason first. */
export const retryPrompt = (reason: string) => `${reason}\n\n${URL_PROMPT}`;

/** Asks for the subscription URL and a name; the editor's address, or null when aborted. */
export function askNewCalendar(ask: Ask = browserAsk, makeId: () => string = newCalendarId): string | null {
  let url = ask(URL_PROMPT)?.trim() ?? '';
  for (;;) {
    if (url === '') return null;
    const check = checkFeedUrl(url);
    if (check.ok) break;
    url = ask(retryPrompt(check.reason), url)?.trim() ?? '';
  }
  const name = ask(NAME_PROMPT, DEFAULT_NAME)?.trim() ?? '';
  return editorPath({ id: makeId(), url, name: name === '' ? DEFAULT_NAME : name });
}

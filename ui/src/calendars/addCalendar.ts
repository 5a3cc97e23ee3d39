// Add (SPEC.md 4): a prompt for the subscription URL (cancel or empty aborts), then one for the
// name (default 'New Calendar'); the new record opens in the editor, unsaved until Save.
import { DEFAULT_NAME, editorPath, newCalendarId } from './calendar';

export type Ask = (message: string, defaultValue?: string) => string | null;

const browserAsk: Ask = (message, defaultValue) => window.prompt(message, defaultValue);

export const URL_PROMPT = 'Subscription URL of the calendar (https:// or webcal://):';
export const NAME_PROMPT = 'Name of the calendar:';

/** Asks for the subscription URL and a name; the editor's address, or null when aborted. */
export function askNewCalendar(ask: Ask = browserAsk, makeId: () => string = newCalendarId): string | null {
  const url = ask(URL_PROMPT)?.trim() ?? '';
  if (url === '') return null;
  const name = ask(NAME_PROMPT, DEFAULT_NAME)?.trim() ?? '';
  return editorPath({ id: makeId(), url, name: name === '' ? DEFAULT_NAME : name });
}

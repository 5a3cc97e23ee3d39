// Add (SPEC.md 4): a prompt for the subscription URL (cancel or empty aborts), then one for the
// name (default 'New Calendar'); the new record opens in the editor, unsaved until Save.
import { DEFAULT_NAME, editorPath, newCalendarId } from './calendar';

/** Asks for the subscription URL (cancel or empty aborts) and a name; the editor's address. */
export function askNewCalendar(): string | null {
  const url = window.prompt('Subscription URL of the calendar (https:// or webcal://):')?.trim() ?? '';
  if (url === '') return null;
  const name = window.prompt('Name of the calendar:', DEFAULT_NAME)?.trim() ?? '';
  return editorPath({ id: newCalendarId(), url, name: name === '' ? DEFAULT_NAME : name });
}

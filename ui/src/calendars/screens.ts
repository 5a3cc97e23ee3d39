// The calendar tool's code in two parts, each loaded on first visit: its routes with the list, and
// the editor with its panels and dialogs (the list and a phone's first visit do not parse it).
// Declared apart from both, in the app's first download, so that an address of the editor fetches
// the two together with the router (src/screens.ts, by src/routeParts.ts's table: the editor is
// at /calendars/new) instead of one after the other.
import { lazyScreen } from '../lib/lazyScreen';

export const calendarRoutes = lazyScreen(() => import('./CalendarRoutes').then((m) => m.default));
export const calendarEditor = lazyScreen(() => import('./CalendarEditorPage').then((m) => m.CalendarEditorRoute));

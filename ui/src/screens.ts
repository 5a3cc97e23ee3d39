// The app's code beyond the landing page, in parts loaded on first visit: the router (RouterApp),
// one part per tool, and the calendar editor on its own. They are declared here, in the first
// download, so that opening an address inside a tool fetches every part its screen shows at once
// instead of one after another (the router, then the tool, then the editor: a waterfall that
// kept a phone waiting one round trip per part), and main.tsx draws the screen once they are here.
import { calendarPartsAt } from './calendars/screens';
import { lazyScreen, type Loadable } from './lib/lazyScreen';

export const routerApp = lazyScreen(() => import('./RouterApp').then((m) => m.default));
export const flashcardRoutes = lazyScreen(() => import('./flashcards/FlashcardRoutes').then((m) => m.default));
export const syncRoutes = lazyScreen(() => import('./sync/SyncRoutes').then((m) => m.default));
// The owner page (issue 23): linked from nowhere, and "page not found" on a site without a key.
export const ownerRoutes = lazyScreen(() => import('./owner/OwnerRoutes').then((m) => m.default));

const under = (path: string, prefix: string) => path.toLowerCase() === prefix || path.toLowerCase().startsWith(`${prefix}/`);

/** The parts the screen at `path` shows (RouterApp's routes): none for the landing page, which is in the first download. */
export function partsAt(path: string): Loadable[] {
  if (path === '/') return [];
  if (under(path, '/flashcards')) return [routerApp, flashcardRoutes];
  if (under(path, '/calendars')) return [routerApp, ...calendarPartsAt(path)];
  if (under(path, '/sync')) return [routerApp, syncRoutes];
  if (under(path, '/owner')) return [routerApp, ownerRoutes];
  return [routerApp];
}

/** Starts fetching every part the screen at `path` shows, all at once. */
export const loadScreens = (path: string): Promise<unknown>[] => partsAt(path).map((part) => part.load());

// The app's code beyond the landing page, in parts loaded on first visit: the router (RouterApp),
// one part per tool, and the calendar editor on its own. They are declared here, in the first
// download, so that opening an address inside a tool fetches every part its screen shows at once
// instead of one after another (the router, then the tool, then the editor: a waterfall that
// kept a phone waiting one round trip per part), and main.tsx draws the screen once they are here.
// Which address shows which parts is routeParts.ts's table, which the server also reads (through
// the build) to name the parts' files in the page it sends, so the browser has them fetching
// before this code even runs.
import { calendarEditor, calendarRoutes } from './calendars/screens';
import { lazyScreen, type Loadable } from './lib/lazyScreen';
import { partNamesAt, type PartName } from './routeParts';

export const routerApp = lazyScreen(() => import('./RouterApp').then((m) => m.default));
export const flashcardRoutes = lazyScreen(() => import('./flashcards/FlashcardRoutes').then((m) => m.default));
export const syncRoutes = lazyScreen(() => import('./sync/SyncRoutes').then((m) => m.default));
// The owner page (issue 23): linked from nowhere, and "page not found" on a site without a key.
export const ownerRoutes = lazyScreen(() => import('./owner/OwnerRoutes').then((m) => m.default));

const parts: Record<PartName, Loadable> = {
  router: routerApp,
  flashcards: flashcardRoutes,
  calendars: calendarRoutes,
  calendarEditor,
  sync: syncRoutes,
  owner: ownerRoutes,
};

/** The parts the screen at `path` shows (RouterApp's routes): none for the landing page, which is in the first download. */
export const partsAt = (path: string): Loadable[] => partNamesAt(path).map((name) => parts[name]);

/** Starts fetching every part the screen at `path` shows, all at once. */
export const loadScreens = (path: string): Promise<unknown>[] => partsAt(path).map((part) => part.load());

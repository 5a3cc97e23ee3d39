// The page's one script: starts the app (main.tsx). The server writes the app's frame into the
// page, and for some screens their top too (src/site/index.rs, from routeParts.ts's table): such a
// screen is painted from the page and its style sheet alone, and only then is the app's code
// fetched, so that on a slow connection it does not share the bandwidth the first paint waits
// for. Any other screen needs the app to draw it: its code starts at once (the page names its
// files to fetch beside this one).
import { partNamesAt, type PartName } from './routeParts';
import './styles/global.css';

/** How long the app waits for the first paint at most (a tab opened in the background paints late). */
const PAINT_WAIT_MS = 500;

function afterFirstPaint(start: () => void) {
  let started = false;
  const once = () => {
    if (started) return;
    started = true;
    start();
  };
  setTimeout(once, PAINT_WAIT_MS);
  if (typeof PerformanceObserver === 'undefined' || !PerformanceObserver.supportedEntryTypes.includes('paint')) {
    requestAnimationFrame(() => setTimeout(once, 0));
    return;
  }
  const observer = new PerformanceObserver((list) => {
    if (list.getEntries().length === 0) return;
    observer.disconnect();
    once();
  });
  observer.observe({ type: 'paint', buffered: true });
}

// The same modules screens.ts loads (a module is fetched and run once, whoever imports it first):
// fetched here beside main.tsx, not after it.
const parts: Record<PartName, () => Promise<unknown>> = {
  router: () => import('./RouterApp'),
  flashcards: () => import('./flashcards/FlashcardRoutes'),
  calendars: () => import('./calendars/CalendarRoutes'),
  calendarEditor: () => import('./calendars/CalendarEditorPage'),
  sync: () => import('./sync/SyncRoutes'),
  owner: () => import('./owner/OwnerRoutes'),
};

const start = () => {
  void import('./main');
  for (const name of partNamesAt(window.location.pathname)) void parts[name]().catch(() => undefined);
};
if (document.querySelector('#root main')?.firstElementChild) afterFirstPaint(start);
else start();

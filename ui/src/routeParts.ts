// Which parts of the app's code the screen at each address shows: one table for the start-up,
// which fetches them at once (screens.ts), and for the build, which lists each rule's files in
// index.html (scripts/routePreloads.ts) so that the server names them in the page it sends for
// that address (<link rel="modulepreload">): the browser fetches them beside the entry script
// instead of after it. Plain data, no imports: vite.config.ts reads it too.

/** A part loaded on first visit (screens.ts maps each name to its code). */
export type PartName = 'router' | 'flashcards' | 'calendars' | 'calendarEditor' | 'sync' | 'owner';

export interface RouteRule {
  /** The address, lower case, without a trailing slash ("/" for the landing page). */
  path: string;
  /** Also every address under it (`path/…`). */
  under: boolean;
  parts: PartName[];
}

/** First match wins; an address no rule matches shows the router's "page not found". */
export const ROUTE_RULES: RouteRule[] = [
  // The landing page is in the first download.
  { path: '/', under: false, parts: [] },
  // The calendar editor is at /calendars/new (CalendarRoutes).
  { path: '/calendars/new', under: false, parts: ['router', 'calendars', 'calendarEditor'] },
  { path: '/flashcards', under: true, parts: ['router', 'flashcards'] },
  { path: '/calendars', under: true, parts: ['router', 'calendars'] },
  { path: '/sync', under: true, parts: ['router', 'sync'] },
  // The owner page (issue 23): linked from nowhere, and "page not found" on a site without a key.
  { path: '/owner', under: true, parts: ['router', 'owner'] },
];

export const OTHER_PARTS: PartName[] = ['router'];

/** Whether `rule` covers `path` (letter case and a trailing slash aside). */
export function ruleMatches(rule: RouteRule, path: string): boolean {
  const lower = path.toLowerCase();
  if (lower === rule.path || lower === `${rule.path}/`) return true;
  return rule.under && lower.startsWith(`${rule.path}/`);
}

/** The parts the screen at `path` shows. */
export function partNamesAt(path: string): PartName[] {
  return ROUTE_RULES.find((rule) => ruleMatches(rule, path))?.parts ?? OTHER_PARTS;
}

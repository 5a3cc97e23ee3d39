// Which parts of the app's code the screen at each address shows: one table for the start-up,
// which fetches them at once (screens.ts), and for the build, which lists each rule's files in
// index.html (scripts/routePreloads.ts) so that the server names them in the page it sends for
// that address (<link rel="modulepreload">): the browser fetches them beside the entry script
// instead of after it. Plain data, no imports: vite.config.ts reads it too.
//
// Some screens' top is the same for every visitor (no stored data in it): their rule carries it
// as `top`, the HTML React draws there (ui/e2e/first-frame.e2e.ts checks it is, to the
// attribute), and the server writes it into the page's main. Such a screen is painted from the
// page and its style sheet alone, and its code is fetched only after that paint (boot.ts), so
// the page names none of it. Only classes of styles/global.css (the page's one style sheet), and
// nothing to press but links (a button would do nothing until the app is here).

/** A part loaded on first visit (screens.ts maps each name to its code). */
export type PartName = 'router' | 'flashcards' | 'calendars' | 'calendarEditor' | 'sync' | 'owner';

export interface RouteRule {
  /** The address, lower case, without a trailing slash ("/" for the landing page). */
  path: string;
  /** Also every address under it (`path/…`). */
  under: boolean;
  parts: PartName[];
  /** The screen's top, as React draws it inside main (see above). */
  top?: string;
}

/** What lib/routeFocus.tsx draws first in main on every screen. */
const ROUTE_ANNOUNCER = '<p class="visually-hidden" aria-live="polite" aria-atomic="true"></p>';

/**
 * calendars/CalendarListPage.tsx's title (the list below it is the visitor's). Not its button: one
 * in the page would do nothing until the app is here, and a click on it would be lost; the
 * toolbar keeps the button's height meanwhile (styles/global.css), so nothing moves when it comes.
 */
const CALENDAR_LIST_TOP = `${ROUTE_ANNOUNCER}<section class="page cal-list-page"><div class="toolbar"><div class="toolbar__title"><h1 tabindex="-1">Calendars</h1></div></div></section>`;

/** Where the server writes sync/words.ts's vaultExpiryText, with its space (nothing when the server does not say). */
export const VAULT_EXPIRY_MARK = '<!--vault-expiry-->';

/** sync/SyncPage.tsx's title and lead on a server that syncs (the server drops it on one that does not). */
const SYNC_TOP =
  `${ROUTE_ANNOUNCER}<section class="page page--narrow sync-page" aria-labelledby="sync-title"><h1 id="sync-title">Sync</h1>` +
  '<p>Keep your decks, their review history and your saved calendars on every device, without an account. Everything is encrypted in the browser with a key ' +
  `that exists only in the sync link: the server stores data it cannot read.${VAULT_EXPIRY_MARK}</p></section>`;

/** Where the server writes the owner's name, and their picture's address, in a top (escaped). */
export const PROFILE_NAME_MARK = '<!--profile-name-->';
export const AVATAR_URL_MARK = '<!--avatar-url-->';

/**
 * landing/LandingPage.tsx's picture and name, the same for every visitor (the server fills in the
 * owner's profile): its largest paint comes with the page, the picture fetched at once. Not its
 * About button (it would do nothing until the app is here); what follows the name comes below it,
 * so nothing in the top moves when the app draws the rest. No route announcer: the landing page
 * is drawn outside the router; and React writes an image's src after its other attributes.
 */
const LANDING_TOP =
  `<section class="landing"><img class="landing__avatar" alt="Profile picture" width="128" height="128" fetchpriority="high" decoding="async" src="${AVATAR_URL_MARK}">` +
  `<h1 class="landing__name">${PROFILE_NAME_MARK}</h1></section>`;

/** layout/NotFoundPage.tsx, whole. */
export const NOT_FOUND_TOP =
  `${ROUTE_ANNOUNCER}<section class="page page--narrow empty-state"><h1>Page not found</h1><p>There is nothing at this address.</p>` +
  '<a href="/" class="button button--primary">Go to the home page</a></section>';

/** First match wins; an address no rule matches shows the router's "page not found". */
export const ROUTE_RULES: RouteRule[] = [
  // The landing page is in the app's start (main.tsx).
  { path: '/', under: false, parts: [], top: LANDING_TOP },
  // The calendar editor is at /calendars/new (CalendarRoutes).
  { path: '/calendars/new', under: false, parts: ['router', 'calendars', 'calendarEditor'] },
  { path: '/flashcards', under: true, parts: ['router', 'flashcards'] },
  { path: '/calendars', under: false, parts: ['router', 'calendars'], top: CALENDAR_LIST_TOP },
  { path: '/calendars', under: true, parts: ['router', 'calendars'] },
  { path: '/sync', under: false, parts: ['router', 'sync'], top: SYNC_TOP },
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

/** Where the service worker keeps the one copy of the pages without a top (an address of none). */
export const SHARED_PAGE_KEY = '/index.html';

/**
 * Where the service worker keeps the page of `path` for offline visits: a page that carries a
 * screen's top under its own address, so that offline another address never shows that top
 * before its own screen; every other page under SHARED_PAGE_KEY, one copy for them all (they
 * differ only in the files they name and the header's current tool).
 */
export function pageCacheKey(path: string): string {
  const rule = ROUTE_RULES.find((r) => ruleMatches(r, path));
  return rule?.top === undefined ? SHARED_PAGE_KEY : rule.path;
}

/**
 * A page with its screen's top taken out of main: offline, an address whose page was never kept
 * gets a kept page of another address so (only the frame; the app draws the rest).
 */
export function withoutTop(page: string): string {
  return page.replace(/(<main\b[^>]*>)[\s\S]*?(<\/main>)/, '$1$2');
}

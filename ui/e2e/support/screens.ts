// Every screen of the app with the data it needs, for the accessibility sweep (axe, in make test),
// the layout shift sweep and the Lighthouse run (make bench): the same list, so all look at the
// same places. The owner page exists only on a site with a publish key: it is looked at on a
// second server that has one, with the key kept in that site's storage so nothing asks for it.
import { deckRecord, FRENCH } from '../flashcards-support/seed';
import { useCalendarSite } from '../calendars-support/site';
import { WORK_FEED } from '../calendars-support/upstream';
import { comingFeed } from '../calendars-support/agenda';
import { useServer } from './server';

export const SEED_DECK_ID = FRENCH.id;
export const SEED_CALENDAR_ID = 'screens-calendar';
/** The keyed site's publish key. */
export const SCREENS_KEY = 'screens-publish-key';

/** localStorage entries: one deck, and one hosted calendar whose feed is `feedUrl`. */
export function seedEntries(feedUrl: string, origin: string): [string, string][] {
  return [
    ['decks:index', JSON.stringify([FRENCH.id])],
    [`decks:${FRENCH.id}`, JSON.stringify(deckRecord(FRENCH))],
    [
      'calendars:v1',
      JSON.stringify([
        {
          id: SEED_CALENDAR_ID,
          name: 'Work',
          url: `${feedUrl}?token=secret`,
          mapping: { SUMMARY: '${SUMMARY}', DESCRIPTION: '${DESCRIPTION}', LOCATION: '${LOCATION}', DTSTART: '${DTSTART}', DTEND: '${DTEND}' },
          lastBuiltAt: '2025-01-01T00:00:00.000Z',
          hostedUrl: `${origin}/cal/${SEED_CALENDAR_ID}.ics`,
        },
      ]),
    ],
  ];
}

/** localStorage entries of the keyed site: its key, as the owner page keeps it once given. */
export function keyedSeedEntries(): [string, string][] {
  return [['site:key', SCREENS_KEY]];
}

export interface Screen {
  name: string;
  path: string;
  /** A selector that shows the screen is ready (data loaded). */
  ready: string;
  /** On the site with a publish key (ScreensSite.keyedOrigin), else on the open one. */
  keyed?: boolean;
}

export function screens(feedUrl: string): Screen[] {
  const editor = `/calendars/new?${new URLSearchParams({ id: SEED_CALENDAR_ID, url: `${feedUrl}?token=secret`, name: 'Work' }).toString()}`;
  return [
    { name: 'landing', path: '/', ready: 'h1' },
    { name: 'deck list', path: '/flashcards', ready: 'h1' },
    { name: 'new deck', path: '/flashcards/new', ready: 'h1' },
    { name: 'deck edit', path: `/flashcards/${SEED_DECK_ID}/edit`, ready: 'h1' },
    { name: 'practice', path: `/flashcards/${SEED_DECK_ID}/practice`, ready: 'h1' },
    { name: 'review due', path: `/flashcards/${SEED_DECK_ID}/review`, ready: 'h1' },
    { name: 'progress', path: `/flashcards/${SEED_DECK_ID}/progress`, ready: 'h1' },
    { name: 'sync', path: '/sync', ready: 'h1' },
    { name: 'calendar list', path: '/calendars', ready: '.cal-item' },
    { name: 'calendar editor', path: editor, ready: '.cal-fields' },
    { name: 'not found', path: '/nowhere', ready: 'h1' },
    { name: 'owner', path: '/owner', ready: '#owner-backups', keyed: true },
  ];
}

export interface ScreensSite {
  /** The hearth server's address. */
  origin: string;
  /** The calendar's upstream feed. */
  feedUrl: string;
  /** A second server, with a publish key (SCREENS_KEY): the owner page's. */
  keyedOrigin: string;
  /** A feed of coming events (the agenda page's). */
  comingUrl: string;
}

/** The sites every screen check looks at: the calendar suites' site and a keyed one, with the owner's name set. */
export function useScreensSite(): () => ScreensSite {
  const site = useCalendarSite({ '/work.ics': { body: WORK_FEED }, '/coming.ics': { body: comingFeed() } }, ['--owner-name', 'Ada Lovelace']);
  const keyed = useServer(['--owner-name', 'Ada Lovelace', '--publish-key', SCREENS_KEY]);
  return () => ({ origin: site.url(), feedUrl: site.up().url('/work.ics'), keyedOrigin: keyed(), comingUrl: site.up().url('/coming.ics') });
}

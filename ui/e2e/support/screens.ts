// Every screen of the app with the data it needs, for the accessibility sweep (axe, in make test)
// and the Lighthouse run (make bench): the same list, so both look at the same places.
import { deckRecord, FRENCH } from '../flashcards-support/seed';
import { useCalendarSite } from '../calendars-support/site';
import { WORK_FEED } from '../calendars-support/upstream';

export const SEED_DECK_ID = FRENCH.id;
export const SEED_CALENDAR_ID = 'screens-calendar';

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

export interface Screen {
  name: string;
  path: string;
  /** A selector that shows the screen is ready (data loaded). */
  ready: string;
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
  ];
}

export interface ScreensSite {
  /** The hearth server's address. */
  origin: string;
  /** The calendar's upstream feed. */
  feedUrl: string;
}

/** The site every screen check looks at: the calendar suites' site, with the owner's name set. */
export function useScreensSite(): () => ScreensSite {
  const site = useCalendarSite({ '/work.ics': { body: WORK_FEED } }, ['--owner-name', 'Ada Lovelace']);
  return () => ({ origin: site.url(), feedUrl: site.up().url('/work.ics') });
}

// What sync carries of the calendar tool (lib/syncAdapters.ts's CalendarsAdapter): the saved
// list, under this feature's own key and checked with its own schema. RouterApp hands it to sync;
// sync never names the key. Beside storage.ts, the only calendars code that touches the browser's
// storage (it writes without announcing a local change: sync wrote it).
import type { CalendarsAdapter } from '../lib/syncAdapters';
import { browserStorage, CALENDARS_KEY, createCalendarStore, parseCalendarList } from './storage';

export function createCalendarsSyncAdapter(storage: Storage | null): CalendarsAdapter {
  const store = createCalendarStore(storage);
  return {
    read: () => store.list(),
    parse: parseCalendarList,
    write(list) {
      if (!storage) throw new Error('browser storage is not available');
      storage.setItem(CALENDARS_KEY, JSON.stringify(parseCalendarList(list)));
    },
  };
}

/** The adapter RouterApp hands to sync. */
export const calendarsSyncAdapter: CalendarsAdapter = createCalendarsSyncAdapter(browserStorage());

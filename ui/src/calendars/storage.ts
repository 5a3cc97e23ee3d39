// The only code that touches localStorage for calendars: the saved list under `calendars:v1`
// (DESIGN.md "Browser storage"; the site's key is lib/siteKey.ts's), and the editor's unsaved work
// on each calendar under `calendar:draft:{id}` (kept in this browser, never synced). Reads are validated: entries
// without the shape of a calendar are dropped, missing mapping fields get their default, and
// nothing unchecked reaches a screen. Writes report failure instead of throwing.
import { announceLocalChange } from '../lib/localChanges';
import { parseOrNull } from '../lib/schema';
import { CalendarDraftSchema, SavedCalendarSchema, type CalendarDraft, type SavedCalendar } from './calendar';

export const CALENDARS_KEY = 'calendars:v1';
/** One calendar's unsaved draft: `${DRAFT_PREFIX}${id}`. */
export const DRAFT_PREFIX = 'calendar:draft:';

export type WriteResult = { ok: true } | { ok: false; error: string };

export interface CalendarStore {
  /** The readable calendars, in stored order. */
  list(): SavedCalendar[];
  get(id: string): SavedCalendar | null;
  /** Replaces the calendar with the same id in place, or appends it. */
  upsert(calendar: SavedCalendar): WriteResult;
  /** Changes some fields of a stored calendar; a no-op success when it is not stored. */
  update(id: string, change: (calendar: SavedCalendar) => SavedCalendar): WriteResult;
  remove(id: string): WriteResult;
  /** The editor's unsaved work on calendar `id`, when there is a readable one. */
  readDraft(id: string): CalendarDraft | null;
  writeDraft(draft: CalendarDraft): WriteResult;
  clearDraft(id: string): void;
  /** Every readable draft, oldest write first. */
  drafts(): CalendarDraft[];
}

/** One stored calendar, or null when it has not the shape of one. */
export function parseCalendar(value: unknown): SavedCalendar | null {
  return parseOrNull(SavedCalendarSchema, value);
}

/** The stored list: non-lists read as empty, bad entries and repeated ids are dropped. */
export function parseCalendarList(value: unknown): SavedCalendar[] {
  if (!Array.isArray(value)) return [];
  const seen = new Set<string>();
  const calendars: SavedCalendar[] = [];
  for (const entry of value as unknown[]) {
    const calendar = parseCalendar(entry);
    if (!calendar || seen.has(calendar.id)) continue;
    seen.add(calendar.id);
    calendars.push(calendar);
  }
  return calendars;
}

function describeWriteError(error: unknown): string {
  const name = error instanceof DOMException || error instanceof Error ? error.name : '';
  if (name === 'QuotaExceededError' || name === 'NS_ERROR_DOM_QUOTA_REACHED') {
    return 'Browser storage is full: the calendar could not be saved. Nothing saved before was lost.';
  }
  return `The calendar could not be saved: ${error instanceof Error ? error.message : String(error)}`;
}

/** The browser's localStorage, or null where it is disabled (reading the property can throw). */
export function browserStorage(): Storage | null {
  try {
    return typeof window === 'undefined' ? null : window.localStorage;
  } catch {
    return null;
  }
}

export function createCalendarStore(storage: Storage | null): CalendarStore {
  const readRaw = (key: string): string | null => {
    try {
      return storage?.getItem(key) ?? null;
    } catch {
      return null;
    }
  };

  const write = (key: string, value: string): WriteResult => {
    if (!storage) return { ok: false, error: 'Browser storage is not available in this window.' };
    try {
      storage.setItem(key, value);
      if (key === CALENDARS_KEY) announceLocalChange();
      return { ok: true };
    } catch (error) {
      return { ok: false, error: describeWriteError(error) };
    }
  };

  const list = (): SavedCalendar[] => {
    const raw = readRaw(CALENDARS_KEY);
    if (raw === null) return [];
    try {
      return parseCalendarList(JSON.parse(raw));
    } catch {
      return [];
    }
  };

  const writeList = (calendars: SavedCalendar[]) => write(CALENDARS_KEY, JSON.stringify(calendars));

  const readDraft = (id: string): CalendarDraft | null => {
    const raw = readRaw(`${DRAFT_PREFIX}${id}`);
    if (raw === null) return null;
    try {
      const draft = parseOrNull(CalendarDraftSchema, JSON.parse(raw));
      // A draft is of the calendar its key names.
      return draft?.id === id ? draft : null;
    } catch {
      return null;
    }
  };

  const draftIds = (): string[] => {
    const ids: string[] = [];
    try {
      for (let i = 0; storage && i < storage.length; i += 1) {
        const key = storage.key(i);
        if (key?.startsWith(DRAFT_PREFIX)) ids.push(key.slice(DRAFT_PREFIX.length));
      }
    } catch {
      return [];
    }
    return ids;
  };

  return {
    list,
    get: (id) => list().find((calendar) => calendar.id === id) ?? null,
    upsert(calendar) {
      const clean = parseCalendar(calendar);
      if (!clean) return { ok: false, error: 'The calendar needs a valid id and a feed address.' };
      const calendars = list();
      const at = calendars.findIndex((c) => c.id === clean.id);
      if (at >= 0) calendars[at] = clean;
      else calendars.push(clean);
      return writeList(calendars);
    },
    update(id, change) {
      const calendars = list();
      const at = calendars.findIndex((c) => c.id === id);
      const current = calendars[at];
      if (!current) return { ok: true };
      const changed = parseCalendar(change(current));
      if (!changed) return { ok: false, error: 'The calendar needs a valid id and a feed address.' };
      calendars[at] = changed;
      return writeList(calendars);
    },
    remove(id) {
      const calendars = list();
      const kept = calendars.filter((c) => c.id !== id);
      if (kept.length === calendars.length) return { ok: true };
      return writeList(kept);
    },
    readDraft,
    writeDraft(draft) {
      const clean = parseOrNull(CalendarDraftSchema, draft);
      if (!clean) return { ok: false, error: 'The draft needs a valid calendar id.' };
      const written = write(`${DRAFT_PREFIX}${clean.id}`, JSON.stringify(clean));
      return written.ok
        ? written
        : {
            ok: false,
            error: 'This browser could not keep your unsaved changes as a draft: its storage is full or turned off. Save to keep them in the list.',
          };
    },
    clearDraft(id) {
      try {
        storage?.removeItem(`${DRAFT_PREFIX}${id}`);
      } catch {
        // Storage turned off: there is no draft to clear.
      }
    },
    drafts() {
      return draftIds()
        .flatMap((id) => readDraft(id) ?? [])
        .sort((a, b) => (a.savedAt < b.savedAt ? -1 : a.savedAt > b.savedAt ? 1 : 0));
    },
  };
}

export const calendarStore = createCalendarStore(browserStorage());

// What keeps the calendar editor's work from being lost, as pure functions the screen calls: the
// draft it writes while it holds changes the saved list does not, and where it starts (the saved
// calendar, or its unsaved draft, said so). The leave rules are lib/drafts.ts's.
import { isEmptyOptions } from './options';
import { draftCalendar, type CalendarDraft, type SavedCalendar } from './calendar';
import { editorContent, initialEditorState, type EditorState } from './editor';
import { storedFeed } from './sources';

/** The editor's work as `calendar:draft:{id}` keeps it. */
export function draftOf(state: EditorState, calendar: { id: string; name: string }, now: Date): CalendarDraft {
  return {
    id: calendar.id,
    name: calendar.name,
    ...storedFeed(state.sources.rows),
    mapping: state.mapping,
    ...(isEmptyOptions(state.options) ? {} : { options: state.options }),
    savedAt: now.toISOString(),
  };
}

export interface EditorStart {
  state: EditorState;
  /** Set when unsaved changes were restored: the screen says so and offers to discard them. */
  restored: { savedAt: string } | null;
}

/**
 * The editor opened on calendar `stored` (null: never saved) at the link's address `url`: its
 * draft when there is one of this calendar at this address (the link follows the first feed, or
 * the list's link names the saved address), with the hosting of the saved calendar; else as the
 * list holds it. A draft that says what the list says is nothing to restore.
 */
export function editorStart(stored: SavedCalendar | null, draft: CalendarDraft | null, url: string): EditorStart {
  const opened = initialEditorState(stored, url);
  if (!draft || (draft.url !== url && stored?.url !== url)) return { state: opened, restored: null };
  const state: EditorState = {
    ...initialEditorState(draftCalendar(draft), draft.url),
    hosting: opened.hosting,
    saved: stored ? initialEditorState(stored).saved : null,
  };
  if (state.saved !== null && editorContent(state) === state.saved) return { state: opened, restored: null };
  return { state, restored: { savedAt: draft.savedAt } };
}

// A CalDAV account's calendars, chosen in the editor (issue "Sources behind a login"): the form
// (the account's address, a username and a password), what it sends to POST
// /api/caldav/calendars, the answer read, the server's words put at the input they are about, and
// the source a chosen calendar becomes. Pure: CaldavPicker.tsx draws it.
import * as v from 'valibot';
import { listOf, nonEmpty, orNull, record } from '../lib/schema';
import { checkFeedUrl } from './feedUrl';
import type { GivenLogin } from './sourceLogin';

/** The server's bound on a username or password, in bytes (MAX_AUTH_BYTES). */
export const MAX_LOGIN_BYTES = 1024;

export interface CaldavForm {
  address: string;
  username: string;
  password: string;
}

export type CaldavInput = keyof CaldavForm;

export const EMPTY_FORM: CaldavForm = { address: '', username: '', password: '' };

/** What the editor can tell is wrong with the form before asking, by input. */
export function formProblems(form: CaldavForm): Partial<Record<CaldavInput, string>> {
  const problems: Partial<Record<CaldavInput, string>> = {};
  const address = form.address.trim();
  const check = checkFeedUrl(address);
  if (address === '') problems.address = 'Give the address of your calendar account.';
  else if (!check.ok) problems.address = check.reason;
  else if (!/^https?:/i.test(address)) problems.address = 'A CalDAV account’s address starts with https:// (or http:// on your own network).';
  if (form.username.trim() === '') problems.username = 'Give the username of the account.';
  else if (new TextEncoder().encode(form.username).length > MAX_LOGIN_BYTES) problems.username = `The username takes at most ${MAX_LOGIN_BYTES} bytes.`;
  if (form.password === '') problems.password = 'Give the password (an app-specific password for iCloud).';
  else if (new TextEncoder().encode(form.password).length > MAX_LOGIN_BYTES) problems.password = `The password takes at most ${MAX_LOGIN_BYTES} bytes.`;
  return problems;
}

/** The login the form gives. */
export const loginOf = (form: CaldavForm): GivenLogin => ({ username: form.username.trim(), password: form.password });

/** The body of POST /api/caldav/calendars. */
export const findRequest = (form: CaldavForm) => ({ url: form.address.trim(), auth: loginOf(form) });

const FoundSchema = record({ url: nonEmpty, name: nonEmpty, color: orNull(v.pipe(v.string(), v.regex(/^#[0-9a-f]{6}$/i))) });

export const FoundCalendarsSchema = record({ calendars: listOf(FoundSchema) });

export type FoundCalendar = v.InferOutput<typeof FoundSchema>;

/** The input a server's field names (`url`: the address, `auth`: the password), else null. */
export function inputOfField(field: string | null): CaldavInput | null {
  if (field === 'url') return 'address';
  if (field === 'auth' || field?.startsWith('auth.')) return 'password';
  return null;
}

/** A sentence: capitalised, with its full stop. */
export function sentence(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return trimmed;
  const first = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?)]$/.test(first) ? first : `${first}.`;
}

/** What the list says when it is empty or has calendars. */
export function foundText(found: readonly FoundCalendar[]): string {
  if (found.length === 0) return 'This account has no calendars with events.';
  return found.length === 1 ? 'One calendar found: choose it to add it.' : `${found.length} calendars found: choose one to add it.`;
}

/** The source a chosen calendar becomes: its address, its name as the label, the form's login. */
export const sourceOf = (found: FoundCalendar, form: CaldavForm) => ({ url: found.url, label: found.name.slice(0, 64), auth: loginOf(form) });

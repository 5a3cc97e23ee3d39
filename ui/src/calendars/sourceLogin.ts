// A source's login (issue 36, "Sources behind a login"): HTTP Basic (a username and a password) or
// a token, write-only. The browser keeps only "set" for a login the server has stored: the
// password or token lives in this page's memory for the session's previews and the publish that
// stores it, never in localStorage or sync. Pure: the login's states, its checks and what it is on
// the wire for a read, a publish and the stored calendar.

/** The longest username, password or token the server takes, in bytes (UTF-8). */
export const MAX_LOGIN_BYTES = 1024;

export type LoginMethod = 'basic' | 'token';

/** The login as the editor holds it. */
export type SourceLogin =
  | { state: 'none' }
  /** Stored on the server: the browser holds only that there is one. */
  | { state: 'saved' }
  /** Being given (or replacing a saved one, kept until the new one is complete). */
  | { state: 'form'; method: LoginMethod; username: string; password: string; token: string; replacing: boolean };

/** A login on the wire: in full, or "set" (the stored one, kept). */
export type LoginWire = { username: string; password: string } | { token: string } | 'set';

/** A login given in full. */
export type GivenLogin = Exclude<LoginWire, 'set'>;

export type LoginField = 'username' | 'password' | 'token';

export type LoginAction =
  | { type: 'add'; method: LoginMethod }
  | { type: 'change' }
  | { type: 'method'; method: LoginMethod }
  | { type: 'set'; field: LoginField; value: string }
  | { type: 'cancel' }
  | { type: 'remove' }
  /** A publish stored what was given. */
  | { type: 'saved' };

export const NO_LOGIN: SourceLogin = { state: 'none' };

const form = (method: LoginMethod, replacing: boolean): SourceLogin => ({ state: 'form', method, username: '', password: '', token: '', replacing });

export function loginReducer(login: SourceLogin, action: LoginAction): SourceLogin {
  switch (action.type) {
    case 'add':
      return login.state === 'none' ? form(action.method, false) : login;
    case 'change':
      return login.state === 'saved' ? form('basic', true) : login;
    case 'method':
      return login.state === 'form' && login.method !== action.method ? { ...login, method: action.method } : login;
    case 'set':
      return login.state === 'form' && login[action.field] !== action.value ? { ...login, [action.field]: action.value } : login;
    case 'cancel':
      return login.state === 'form' ? (login.replacing ? { state: 'saved' } : NO_LOGIN) : login;
    case 'remove':
      return login.state === 'none' ? login : NO_LOGIN;
    case 'saved':
      return login.state === 'form' && complete(login) !== null ? { state: 'saved' } : login;
  }
}

/** The login given in full, or null while a part is missing. */
function complete(login: Extract<SourceLogin, { state: 'form' }>): GivenLogin | null {
  if (login.method === 'token') return login.token === '' ? null : { token: login.token };
  return login.username === '' || login.password === '' ? null : { username: login.username, password: login.password };
}

/**
 * What a read or a publish sends: the login in full once given (and right as far as the editor
 * can tell), "set" for the stored one (also while a replacement is not), nothing without one.
 */
export function loginToSend(login: SourceLogin | undefined): LoginWire | undefined {
  if (!login || login.state === 'none') return undefined;
  if (login.state === 'saved') return 'set';
  // A login the editor can tell is wrong is not sent (it is marked at its input).
  const given = loginProblem(login) === null ? complete(login) : null;
  return given ?? (login.replacing ? 'set' : undefined);
}

/** What the stored (and synced) calendar keeps: "set" for a stored login, never a password. */
export function loginToStore(login: SourceLogin | undefined): 'set' | undefined {
  if (!login) return undefined;
  if (login.state === 'saved' || (login.state === 'form' && login.replacing)) return 'set';
  return undefined;
}

/** A login given in full elsewhere (the CalDAV picker's), held as if typed here: sent with reads until a publish stores it. */
export const loginGiven = (given: GivenLogin): SourceLogin =>
  'token' in given
    ? { state: 'form', method: 'token', username: '', password: '', token: given.token, replacing: false }
    : { state: 'form', method: 'basic', username: given.username, password: given.password, token: '', replacing: false };

/** A stored source's `auth` read back: only "set" means anything. */
export const loginOfStored = (auth: unknown): SourceLogin => (auth === 'set' ? { state: 'saved' } : NO_LOGIN);

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** What is wrong with a login being given, in words, or null. */
export function loginProblem(login: SourceLogin | undefined): { field: LoginField; message: string } | null {
  if (!login || login.state !== 'form') return null;
  const parts: [LoginField, string, string][] =
    login.method === 'token'
      ? [['token', 'token', login.token]]
      : [
          ['username', 'username', login.username],
          ['password', 'password', login.password],
        ];
  for (const [field, name, value] of parts) {
    if (new TextEncoder().encode(value).length > MAX_LOGIN_BYTES) return { field, message: `The ${name} is too long: at most ${MAX_LOGIN_BYTES} bytes.` };
    if (CONTROL.test(value)) return { field, message: `The ${name} cannot hold tabs, line breaks or other control characters.` };
  }
  if (login.method === 'basic' && login.username.includes(':')) return { field: 'username', message: 'A username cannot contain “:”.' };
  return null;
}

/** Whether a login would travel unencrypted: an http:// address (the server allows it only to your own network, or when allowed). */
export const isPlainHttp = (url: string): boolean => /^http:\/\//i.test(url.trim());

/** Whether two logins are the same (rows compare them to know a change is to be committed). */
export function sameLogin(a: SourceLogin | undefined, b: SourceLogin | undefined): boolean {
  return JSON.stringify(a ?? NO_LOGIN) === JSON.stringify(b ?? NO_LOGIN);
}

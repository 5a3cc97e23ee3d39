import { describe, expect, it } from 'vitest';
import { publishFingerprint } from './live';
import { emptyOptions } from './options';
import { defaultMapping } from './calendar';
import { initialSources, parseSourceField, publishTarget, readTarget, sourcesReducer, storedFeed, withOwner, type SourcesAction } from './sources';
import { loginOfStored, loginProblem, loginReducer, loginToSend, loginToStore, NO_LOGIN, sameLogin, type SourceLogin } from './sourceLogin';

const given = (actions: Parameters<typeof loginReducer>[1][], start: SourceLogin = NO_LOGIN) => actions.reduce(loginReducer, start);

describe('a source login', () => {
  it('is sent in full once given, and stored as "set" only after a publish', () => {
    const basic = given([
      { type: 'add', method: 'basic' },
      { type: 'set', field: 'username', value: 'ann' },
    ]);
    expect(loginToSend(basic)).toBeUndefined();
    const full = loginReducer(basic, { type: 'set', field: 'password', value: 'hunter2' });
    expect(loginToSend(full)).toEqual({ username: 'ann', password: 'hunter2' });
    // Never in the stored calendar: not before the publish, only "set" after it.
    expect(loginToStore(full)).toBeUndefined();
    const saved = loginReducer(full, { type: 'saved' });
    expect(saved).toEqual({ state: 'saved' });
    expect(loginToStore(saved)).toBe('set');
    expect(loginToSend(saved)).toBe('set');
    expect(JSON.stringify(loginToStore(saved))).not.toContain('hunter2');
  });

  it('keeps the saved login while a change is not complete, and goes back to it on Cancel', () => {
    const changing = given([{ type: 'change' }, { type: 'method', method: 'token' }], { state: 'saved' });
    expect(loginToSend(changing)).toBe('set');
    expect(loginToStore(changing)).toBe('set');
    expect(loginToSend(loginReducer(changing, { type: 'set', field: 'token', value: 't0k' }))).toEqual({ token: 't0k' });
    expect(loginReducer(changing, { type: 'cancel' })).toEqual({ state: 'saved' });
    expect(loginReducer(given([{ type: 'add', method: 'token' }]), { type: 'cancel' })).toEqual(NO_LOGIN);
  });

  it('is removed by Remove, and a stored "set" reads back as saved', () => {
    expect(loginReducer({ state: 'saved' }, { type: 'remove' })).toEqual(NO_LOGIN);
    expect(loginToSend(NO_LOGIN)).toBeUndefined();
    expect(loginOfStored('set')).toEqual({ state: 'saved' });
    expect(loginOfStored({ password: 'x' })).toEqual(NO_LOGIN);
  });

  it('names what is wrong with a login being given', () => {
    const colon = given([
      { type: 'add', method: 'basic' },
      { type: 'set', field: 'username', value: 'a:b' },
    ]);
    expect(loginProblem(colon)?.field).toBe('username');
    const long = given([
      { type: 'add', method: 'token' },
      { type: 'set', field: 'token', value: 'x'.repeat(1025) },
    ]);
    expect(loginProblem(long)?.message).toMatch(/too long/);
    const control = given([
      { type: 'add', method: 'token' },
      { type: 'set', field: 'token', value: 'a\nb' },
    ]);
    expect(loginProblem(control)?.field).toBe('token');
    expect(loginProblem({ state: 'saved' })).toBeNull();
  });

  it('compares by its whole state (a wrong login typed is committed, to be marked)', () => {
    expect(sameLogin(undefined, NO_LOGIN)).toBe(true);
    expect(sameLogin({ state: 'saved' }, NO_LOGIN)).toBe(false);
    const changing = given([{ type: 'change' }, { type: 'method', method: 'token' }], { state: 'saved' });
    const wrong = loginReducer(changing, { type: 'set', field: 'token', value: 'a\tb' });
    expect(loginToSend(wrong)).toBe('set');
    expect(sameLogin(changing, wrong)).toBe(false);
  });
});

describe('a source with a login on the wire', () => {
  const state = () => initialSources(null, 'https://cal.example/a.ics');
  const withLogin = () =>
    [
      { type: 'login', key: 0, action: { type: 'add', method: 'basic' } },
      { type: 'login', key: 0, action: { type: 'set', field: 'username', value: 'ann' } },
      { type: 'login', key: 0, action: { type: 'set', field: 'password', value: 'hunter2' } },
      { type: 'commit' },
    ].reduce((s, a) => sourcesReducer(s, a as SourcesAction), state());

  it('makes a one-feed calendar a calendar of one source, sent in full and stored as nothing until published', () => {
    const s = withLogin();
    expect(publishTarget(s.rows)?.wire).toEqual({ sources: [{ url: 'https://cal.example/a.ics', auth: { username: 'ann', password: 'hunter2' } }] });
    expect(readTarget(s.committed)?.wire).toEqual({ sources: [{ url: 'https://cal.example/a.ics', auth: { username: 'ann', password: 'hunter2' } }] });
    expect(JSON.stringify(storedFeed(s.rows))).not.toContain('hunter2');
    const saved = sourcesReducer(s, { type: 'loginsSaved' });
    expect(storedFeed(saved.rows)).toEqual({ url: 'https://cal.example/a.ics', sources: [{ url: 'https://cal.example/a.ics', auth: 'set' }] });
    // Read back from storage: "Login saved".
    const reopened = initialSources(storedFeed(saved.rows), 'https://cal.example/a.ics');
    expect(reopened.rows[0]?.login).toEqual({ state: 'saved' });
    // Still shown as its one address, as before the login.
    expect(reopened.listed).toBe(false);
  });

  it('reads a saved login only with the calendar and its edit token', () => {
    const saved = sourcesReducer(withLogin(), { type: 'loginsSaved' });
    const target = readTarget(saved.committed);
    expect(withOwner(target, 'work', undefined)).toBe(target);
    expect(withOwner(target, 'work', 'tok')?.wire).toEqual({
      sources: [{ url: 'https://cal.example/a.ics', auth: 'set' }],
      calendar: { id: 'work', token: 'tok' },
    });
  });

  it('sends plainHttp only with a login, and names a login error at its field', () => {
    const plain = sourcesReducer(withLogin(), { type: 'plainHttp', key: 0, value: true });
    expect(publishTarget(plain.rows)?.wire).toMatchObject({ sources: [{ plainHttp: true }] });
    const removed = sourcesReducer(plain, { type: 'login', key: 0, action: { type: 'remove' } });
    expect(publishTarget(removed.rows)?.wire).toEqual({ url: 'https://cal.example/a.ics' });
    expect(parseSourceField('sources[0].auth')).toEqual({ index: 0, input: 'auth' });
  });
});

describe('the fingerprint of a publish with a login', () => {
  it('holds "set", never the password, and stays live once the login is saved', () => {
    const given = { name: 'P', sources: [{ url: 'https://cal.example/a.ics', auth: { username: 'ann', password: 'hunter2' } }] };
    const saved = { name: 'P', sources: [{ url: 'https://cal.example/a.ics', auth: 'set' as const }] };
    const a = publishFingerprint(given, defaultMapping(), emptyOptions());
    expect(a).not.toContain('hunter2');
    expect(a).toBe(publishFingerprint(saved, defaultMapping(), emptyOptions()));
  });
});

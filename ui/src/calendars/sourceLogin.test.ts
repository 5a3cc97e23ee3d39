import { describe, expect, it } from 'vitest';
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

  it('compares by what it sends', () => {
    expect(sameLogin(undefined, NO_LOGIN)).toBe(true);
    expect(sameLogin({ state: 'saved' }, NO_LOGIN)).toBe(false);
  });
});

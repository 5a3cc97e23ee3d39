// Who may ask how a hosted calendar is doing, and what is said when nobody could tell.
import { describe, expect, it } from 'vitest';
import { checkFailureText, healthAccess } from './health';

describe('a check that got no answer', () => {
  it('is told quietly by the status', () => {
    expect(checkFailureText(0)).toBe('The server could not be reached to check this feed.');
    expect(checkFailureText(401)).toBe("This site's key is needed to check this feed.");
    expect(checkFailureText(403)).toBe('The server did not accept this browser as the owner of this feed.');
    expect(checkFailureText(404)).toBe('The server no longer hosts this calendar.');
    for (const status of [429, 500, 502, 503]) expect(checkFailureText(status)).toBe('How this feed is doing could not be checked just now.');
  });
});

describe('who may check', () => {
  it('needs a hosted calendar and its edit token or the site key', () => {
    expect(healthAccess({}, 'k')).toBeNull();
    expect(healthAccess({ editToken: 't' }, null)).toBeNull();
    expect(healthAccess({ hostedUrl: 'http://h/cal/a.ics' }, null)).toBeNull();
    expect(healthAccess({ hostedUrl: 'http://h/cal/a.ics', editToken: 't' }, null)).toEqual({ editToken: 't', key: null });
    expect(healthAccess({ hostedUrl: 'http://h/cal/a.ics' }, 'k')).toEqual({ editToken: null, key: 'k' });
    expect(healthAccess({ hostedUrl: 'http://h/cal/a.ics', editToken: 't' }, 'k')).toEqual({ editToken: 't', key: 'k' });
  });
});

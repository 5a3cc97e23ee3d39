import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { EMPTY_FORM, findRequest, formProblems, foundText, FoundCalendarsSchema, inputOfField, sentence, sourceOf } from './caldav';

const form = { address: ' https://caldav.icloud.com ', username: ' me@icloud.com ', password: 'abcd-efgh-ijkl-mnop' };

describe('the CalDAV form', () => {
  it('asks for every input, in words at each', () => {
    expect(formProblems(EMPTY_FORM)).toEqual({
      address: 'Give the address of your calendar account.',
      username: 'Give the username of the account.',
      password: 'Give the password (an app-specific password for iCloud).',
    });
    expect(formProblems(form)).toEqual({});
  });

  it('takes only web addresses, and logins within the server’s bound', () => {
    expect(formProblems({ ...form, address: 'caldav.icloud.com' }).address).toMatch(/start with https/);
    expect(formProblems({ ...form, address: 'webcal://example.org/x' }).address).toMatch(/https:\/\//);
    expect(formProblems({ ...form, address: 'http://192.168.1.5:5232/' }).address).toBeUndefined();
    expect(formProblems({ ...form, password: 'x'.repeat(1025) }).password).toMatch(/1024 bytes/);
    expect(formProblems({ ...form, username: 'é'.repeat(513) }).username).toMatch(/1024 bytes/);
  });

  it('sends the address trimmed and the login as Basic', () => {
    expect(findRequest(form)).toEqual({
      url: 'https://caldav.icloud.com',
      auth: { username: 'me@icloud.com', password: 'abcd-efgh-ijkl-mnop' },
    });
  });
});

describe('the answer', () => {
  it('keeps the calendars that read and colours that are colours', () => {
    const answer = v.parse(FoundCalendarsSchema, {
      calendars: [
        { url: 'https://dav.example/a/', name: 'Work', color: '#ff8800' },
        { url: 'https://dav.example/b/', name: 'Home' },
        { url: 'https://dav.example/c/', name: 'Odd', color: 'red;background:url(x)' },
        { url: '', name: 'No address' },
        'nonsense',
      ],
    });
    expect(answer.calendars).toEqual([
      { url: 'https://dav.example/a/', name: 'Work', color: '#ff8800' },
      { url: 'https://dav.example/b/', name: 'Home', color: null },
      { url: 'https://dav.example/c/', name: 'Odd', color: null },
    ]);
  });

  it('says how many were found', () => {
    expect(foundText([])).toBe('This account has no calendars with events.');
    expect(foundText([{ url: 'u', name: 'n', color: null }])).toBe('One calendar found: choose it to add it.');
    expect(foundText([1, 2, 3].map((i) => ({ url: `u${i}`, name: 'n', color: null })))).toBe('3 calendars found: choose one to add it.');
  });

  it('puts the server’s words at the input they are about', () => {
    expect(inputOfField('url')).toBe('address');
    expect(inputOfField('auth')).toBe('password');
    expect(inputOfField(null)).toBeNull();
    expect(inputOfField('name')).toBeNull();
    expect(sentence('the login was refused')).toBe('The login was refused.');
    expect(sentence('Done!')).toBe('Done!');
  });

  it('makes a chosen calendar a source named by its name, with the login', () => {
    expect(sourceOf({ url: 'https://dav.example/a/', name: 'W'.repeat(80), color: null }, form)).toEqual({
      url: 'https://dav.example/a/',
      label: 'W'.repeat(64),
      auth: { username: 'me@icloud.com', password: 'abcd-efgh-ijkl-mnop' },
    });
  });
});

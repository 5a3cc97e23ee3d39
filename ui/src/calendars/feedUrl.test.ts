import { describe, expect, it } from 'vitest';
import { checkFeedUrl, hasSecretParts, maskFeedUrl } from './feedUrl';

describe('checkFeedUrl', () => {
  it('accepts http, https and webcal addresses, trimmed', () => {
    expect(checkFeedUrl('  https://example.com/cal.ics ')).toEqual({ ok: true, url: 'https://example.com/cal.ics' });
    expect(checkFeedUrl('webcal://example.com/a.ics').ok).toBe(true);
    expect(checkFeedUrl('http://example.com/a.ics').ok).toBe(true);
  });
  it('refuses text without a scheme and says what to type', () => {
    const check = checkFeedUrl('example.com/cal.ics');
    expect(check).toEqual({ ok: false, reason: expect.stringContaining('https://') as unknown });
  });
  it('refuses other schemes by name', () => {
    expect(checkFeedUrl('ftp://example.com/a.ics')).toEqual({ ok: false, reason: expect.stringContaining('ftp:') as unknown });
    expect(checkFeedUrl('javascript:alert(1)').ok).toBe(false);
  });
  it('refuses an address without a server and an empty one', () => {
    expect(checkFeedUrl('https://').ok).toBe(false);
    expect(checkFeedUrl('   ').ok).toBe(false);
  });
});

describe('maskFeedUrl', () => {
  it('keeps host and path and masks every query value', () => {
    expect(maskFeedUrl('https://cal.example.com/feeds/u.ics?token=s3cret&x=1')).toBe('https://cal.example.com/feeds/u.ics?token=•••&x=•••');
  });
  it('drops user info and leaves plain addresses as they are', () => {
    expect(maskFeedUrl('https://me:pw@example.com/a.ics')).toBe('https://example.com/a.ics');
    expect(maskFeedUrl('https://example.com/a.ics')).toBe('https://example.com/a.ics');
    expect(hasSecretParts('https://example.com/a.ics')).toBe(false);
    expect(hasSecretParts('https://example.com/a.ics?k=v')).toBe(true);
  });
  it('shows an unparsable address as it is', () => {
    expect(maskFeedUrl('not a url')).toBe('not a url');
  });
});

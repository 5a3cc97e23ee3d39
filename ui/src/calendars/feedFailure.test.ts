import { describe, expect, it } from 'vitest';
import { ApiError, UNREACHABLE } from './api';
import { FEED_ERROR, feedFailure } from './useEditorFeed';

describe('the alert of a failed feed read', () => {
  it("is the spec's text, then the server's reason on its own line", () => {
    expect(feedFailure("the feed's host could not be found", 502)).toBe(`${FEED_ERROR}\nthe feed's host could not be found`);
  });
  it('names the input the server says the failure is about, from its field', () => {
    const error = new ApiError(400, 'only http and https addresses can be read', 'url');
    expect(feedFailure(error.message, 400, error)).toBe(`${FEED_ERROR}\nfeed address: only http and https addresses can be read`);
    // Words that merely look like a path stay as they are: no field, no name.
    expect(feedFailure('url: looks like a path', 400, new ApiError(400, 'url: looks like a path'))).toBe(`${FEED_ERROR}\nurl: looks like a path`);
  });
  it('names a feed of a merged calendar by its number', () => {
    const error = new ApiError(400, 'at most 64 characters', 'sources[1].prefix');
    expect(feedFailure(error.message, 400, error)).toBe(`${FEED_ERROR}\nfeed 2 prefix: at most 64 characters`);
    expect(feedFailure('x', 400, new ApiError(400, 'x', 'sources[0].url'))).toBe(`${FEED_ERROR}\nfeed 1 address: x`);
    expect(feedFailure('x', 400, new ApiError(400, 'x', 'sources[9]'))).toBe(`${FEED_ERROR}\nfeed 10 address: x`);
    expect(feedFailure('x', 400, new ApiError(400, 'x', 'sources'))).toBe(`${FEED_ERROR}\nfeeds: x`);
  });
  it('is only the reason when the visitor is throttled or refused', () => {
    expect(feedFailure('too many requests', 429)).toBe('too many requests');
  });
  it('is none when the server could not be reached: the editor says it inline', () => {
    expect(feedFailure(UNREACHABLE, 0)).toBeNull();
    expect(feedFailure('something else broke', 0)).toBe(`${FEED_ERROR}\nsomething else broke`);
  });
});

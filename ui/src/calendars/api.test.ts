import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ApiError,
  errorAnswer,
  fetchCalendarStatus,
  fetchFeed,
  fetchMergedFeed,
  parseFeedAnswer,
  parseMappingRender,
  parsePublishAnswer,
  parseTemplateRender,
  previewConfig,
  publishCalendar,
  readFeed,
  renderMapping,
  renderTemplate,
} from './api';
import { editorPath, toWebcal } from './calendar';

describe('answers from the server', () => {
  it('reads a feed page and drops values that are not text', () => {
    const feed = parseFeedAnswer({
      url: 'https://x/cal.ics',
      properties: [],
      events: [{ SUMMARY: 'A', N: 3 }, 'junk'],
      eventCount: 250,
      offset: 0,
      sizeBytes: 1234,
      warnings: ['line 3: bad', 4],
      warningCount: 7,
      fetchedAt: 'Sat, 01 Nov 2025 10:00:00 GMT',
    });
    expect(feed.events).toEqual([{ SUMMARY: 'A' }, {}]);
    expect(feed.eventCount).toBe(250);
    expect(feed.warnings).toEqual(['line 3: bad']);
    expect(feed.warningCount).toBe(7);
    expect(feed.stale).toBeNull();
  });

  it('reads a merged feed: each source in place, and the source of each event', () => {
    const feed = parseFeedAnswer({
      properties: [],
      events: [{ SUMMARY: '[Work] A' }, { SUMMARY: 'B' }, { SUMMARY: 'C' }],
      eventCount: 3,
      offset: 0,
      sizeBytes: 2000,
      warnings: [],
      warningCount: 0,
      fetchedAt: 'Sat, 01 Nov 2025 10:00:00 GMT',
      stale: null,
      sources: [
        { url: 'https://w/cal.ics', eventCount: 1, sizeBytes: 900, fetchedAt: 'Sat, 01 Nov 2025 10:00:00 GMT' },
        'junk',
        { url: 'https://h/cal.ics', eventCount: 2, sizeBytes: 1100, stale: 'upstream timed out', fetchedAt: 'Fri, 31 Oct 2025 10:00:00 GMT' },
        {
          url: 'https://x/cal.ics',
          eventCount: 0,
          sizeBytes: 0,
          error: 'upstream answered 404',
          uidsChanged: { at: '2025-11-01T10:00:00Z', events: 9, renamed: 8 },
        },
      ],
      eventSources: [0, 2, 2],
    });
    expect(feed.url).toBe('');
    expect(feed.sources).toEqual([
      { url: 'https://w/cal.ics', eventCount: 1, sizeBytes: 900, fetchedAt: 'Sat, 01 Nov 2025 10:00:00 GMT', stale: null, error: null, uidsChanged: null },
      // A bad entry keeps its place, so the indexes in eventSources still name the right source.
      { url: '', eventCount: 0, sizeBytes: 0, fetchedAt: null, stale: null, error: null, uidsChanged: null },
      {
        url: 'https://h/cal.ics',
        eventCount: 2,
        sizeBytes: 1100,
        fetchedAt: 'Fri, 31 Oct 2025 10:00:00 GMT',
        stale: 'upstream timed out',
        error: null,
        uidsChanged: null,
      },
      {
        url: 'https://x/cal.ics',
        eventCount: 0,
        sizeBytes: 0,
        fetchedAt: null,
        stale: null,
        error: 'upstream answered 404',
        uidsChanged: { at: '2025-11-01T10:00:00Z', events: 9, renamed: 8 },
      },
    ]);
    expect(feed.eventSources).toEqual([0, 2, 2]);
    expect(parseFeedAnswer({ events: [{}, {}], eventSources: [1, 'x'] }).eventSources).toEqual([1, -1]);
    expect(parseFeedAnswer({ events: [], eventSources: 'x', sources: {} })).toMatchObject({ eventSources: [], sources: [] });
  });

  it('refuses a feed answer without events', () => {
    expect(() => parseFeedAnswer({ error: 'x' })).toThrow(ApiError);
  });

  it('reads renders with their errors', () => {
    expect(parseMappingRender({ fields: { SUMMARY: 'S', OTHER: 'x' }, errors: [{ field: 'SUMMARY', position: 3, message: 'bad' }] })).toEqual({
      fields: { SUMMARY: 'S' },
      errors: [{ field: 'SUMMARY', position: 3, message: 'bad' }],
    });
    expect(parseTemplateRender({ result: 'r', errors: [] })).toEqual({ result: 'r', errors: [] });
    expect(() => parseTemplateRender({})).toThrow(ApiError);
  });

  it('reads a publish answer, with the edit token only on the first publish', () => {
    expect(parsePublishAnswer({ hostedUrl: 'http://h/cal/a.ics', editToken: 't', revision: 0 })).toEqual({
      hostedUrl: 'http://h/cal/a.ics',
      editToken: 't',
    });
    expect(parsePublishAnswer({ hostedUrl: 'http://h/cal/a.ics', revision: 2 }).editToken).toBeNull();
    expect(() => parsePublishAnswer({ revision: 2 })).toThrow(ApiError);
  });

  it('takes the error and field of a JSON body, else short text, else the status', () => {
    expect(errorAnswer(400, '{"error":"the scheme must be http or https","field":"url"}')).toEqual({
      message: 'the scheme must be http or https',
      field: 'url',
    });
    expect(errorAnswer(400, '{"error":"feed too large"}')).toEqual({ message: 'feed too large', field: null });
    expect(errorAnswer(400, '{"error":"x","field":""}')).toEqual({ message: 'x', field: null });
    expect(errorAnswer(502, 'Bad Gateway\n')).toEqual({ message: 'Bad Gateway', field: null });
    expect(errorAnswer(502, '').message).toBe('the server answered with status 502');
    expect(errorAnswer(500, `<html>${'x'.repeat(400)}</html>`).message).toBe('the server answered with status 500');
  });
});

describe('calendar helpers', () => {
  it('gives the webcal form of http and https addresses', () => {
    expect(toWebcal('https://h.example/cal/a.ics')).toBe('webcal://h.example/cal/a.ics');
    expect(toWebcal('http://127.0.0.1:8080/cal/a.ics')).toBe('webcal://127.0.0.1:8080/cal/a.ics');
    expect(toWebcal('webcal://x')).toBe('webcal://x');
  });

  it('builds the editor address with id, url and name', () => {
    expect(editorPath({ id: 'a', url: 'https://x/c.ics?a=1&b=2', name: 'My cal' })).toBe(
      '/calendars/new?id=a&url=https%3A%2F%2Fx%2Fc.ics%3Fa%3D1%26b%3D2&name=My+cal',
    );
  });
});

describe('calls of the editor', () => {
  afterEach(() => vi.unstubAllGlobals());

  /** Answers every call with `status` and `body`, recording the headers sent. */
  function stubFetch(status: number, body: unknown): Headers[] {
    const sent: Headers[] = [];
    vi.stubGlobal('fetch', (_path: string, init: RequestInit) => {
      sent.push(new Headers(init.headers));
      return Promise.resolve(new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } }));
    });
    return sent;
  }

  it('send the publish key when there is one, since a keyed site guards the whole editor', async () => {
    const sent = stubFetch(200, { events: [], fields: {}, result: '' });
    await fetchFeed('https://x/c.ics', {}, 'k1');
    await renderMapping({}, { SUMMARY: '', DESCRIPTION: '', LOCATION: '', DTSTART: '', DTEND: '' }, 'k1');
    await renderTemplate({}, '${SUMMARY}', 'k1');
    await fetchFeed('https://x/c.ics');
    expect(sent.map((h) => h.get('X-Publish-Key'))).toEqual(['k1', 'k1', 'k1', null]);
    expect(sent[1]?.get('Content-Type')).toBe('application/json');
  });

  it('carry the field a refusal is about', async () => {
    stubFetch(400, { error: 'the pattern does not compile: unclosed group', field: 'filters[1].pattern' });
    const error = await fetchFeed('https://x/c.ics').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, message: 'the pattern does not compile: unclosed group', field: 'filters[1].pattern' });
  });

  it('ask for a status with the edit token and the key, each only when there is one', async () => {
    const paths: string[] = [];
    const sent: Headers[] = [];
    vi.stubGlobal('fetch', (path: string, init: RequestInit) => {
      paths.push(path);
      sent.push(new Headers(init.headers));
      return Promise.resolve(new Response(JSON.stringify({ subscribers: [], flagged: true }), { status: 200 }));
    });
    await expect(fetchCalendarStatus('a-1', 't0k', 'k1')).resolves.toEqual({ upstream: null, subscribers: [], flagged: true, googleAddresses: [] });
    await fetchCalendarStatus('a-1', 't0k', null);
    await fetchCalendarStatus('a-1', null, 'k1');
    expect(paths).toEqual(['/api/calendars/a-1/status', '/api/calendars/a-1/status', '/api/calendars/a-1/status']);
    expect(sent.map((h) => [h.get('Authorization'), h.get('X-Publish-Key')])).toEqual([
      ['Bearer t0k', 'k1'],
      ['Bearer t0k', null],
      [null, 'k1'],
    ]);
  });

  it("read a status's addresses for Google, newest first, keeping only http(s) addresses", async () => {
    const newest = 'https://cal.example/cal/a-1~0123456789.ics';
    const older = 'http://127.0.0.1:8080/cal/a-1~abcdef0123.ics';
    stubFetch(200, { subscribers: [], flagged: false, googleAddresses: [newest, 'javascript:alert(1)', '', 42, 'cal/a-1~x.ics', older] });
    await expect(fetchCalendarStatus('a-1', 't0k', null)).resolves.toMatchObject({ flagged: false, googleAddresses: [newest, older] });
    stubFetch(200, { subscribers: [], flagged: false, googleAddresses: 'nope' });
    await expect(fetchCalendarStatus('a-1', 't0k', null)).resolves.toMatchObject({ googleAddresses: [] });
  });

  it('refuse a status that is not an object, and carry its refusals', async () => {
    stubFetch(200, ['not', 'a', 'status']);
    await expect(fetchCalendarStatus('a', 't', null)).rejects.toMatchObject({ status: 502 });
    stubFetch(403, { error: 'the edit token does not match' });
    await expect(fetchCalendarStatus('a', 't', null)).rejects.toEqual(new ApiError(403, 'the edit token does not match'));
    vi.stubGlobal('fetch', () => Promise.reject(new TypeError('Failed to fetch')));
    await expect(fetchCalendarStatus('a', 't', null)).rejects.toMatchObject({ status: 0 });
  });

  /** Answers every call with `body`, recording what was asked. */
  function recordCalls(body: unknown): { path: string; method: string; body: unknown }[] {
    const calls: { path: string; method: string; body: unknown }[] = [];
    vi.stubGlobal('fetch', (path: string, init: RequestInit) => {
      calls.push({ path, method: init.method ?? 'GET', body: typeof init.body === 'string' ? JSON.parse(init.body) : null });
      return Promise.resolve(new Response(JSON.stringify(body), { status: 200 }));
    });
    return calls;
  }

  it('read one address with GET as before, and merged sources with POST /api/feed', async () => {
    const calls = recordCalls({ events: [] });
    const sources = [{ url: 'https://w/cal.ics', prefix: '[Work] ' }, { url: 'https://h/cal.ics' }];
    await readFeed({ url: 'https://w/cal.ics' }, { limit: 100, refresh: true });
    await readFeed({ sources }, { limit: 100, refresh: true });
    await fetchMergedFeed(sources, { offset: 200, limit: 100 }, 'k1');
    await fetchMergedFeed(sources);
    expect(calls).toEqual([
      { path: '/api/feed?url=https%3A%2F%2Fw%2Fcal.ics&limit=100&refresh=true', method: 'GET', body: null },
      { path: '/api/feed', method: 'POST', body: { sources, limit: 100, refresh: true } },
      { path: '/api/feed', method: 'POST', body: { sources, offset: 200, limit: 100 } },
      { path: '/api/feed', method: 'POST', body: { sources } },
    ]);
  });

  it('preview merged sources inside the config with no url, and one address beside it as before', async () => {
    const calls = recordCalls({ decisions: [] });
    const mapping = { SUMMARY: '${SUMMARY}', DESCRIPTION: '', LOCATION: '', DTSTART: '', DTEND: '' };
    const sources = [{ url: 'https://w/cal.ics', prefix: '[Work] ' }, { url: 'https://h/cal.ics' }];
    await previewConfig({ url: 'https://w/cal.ics' }, { mapping, privacy: 'busy' });
    await previewConfig({ sources }, { mapping, privacy: 'busy' });
    expect(calls.map((c) => c.body)).toEqual([
      { url: 'https://w/cal.ics', config: { mapping, privacy: 'busy' } },
      { config: { mapping, privacy: 'busy', sources } },
    ]);
  });

  it('reads why a series is kept whole, and drops a reason it does not know', async () => {
    recordCalls({
      decisions: [
        { kept: true, keptWhole: true, keptWholeBecause: 'endless' },
        { kept: true, keptWhole: true, keptWholeBecause: 'someday' },
        { kept: true, droppedOccurrences: 3 },
      ],
    });
    const mapping = { SUMMARY: '${SUMMARY}', DESCRIPTION: '', LOCATION: '', DTSTART: '', DTEND: '' };
    const answer = await previewConfig({ url: 'https://w/cal.ics' }, { mapping });
    expect(answer.decisions).toEqual([
      { kept: true, keptWhole: true, keptWholeBecause: 'endless' },
      { kept: true, keptWhole: true },
      { kept: true, droppedOccurrences: 3 },
    ]);
  });

  it('publish a merged calendar with sources and no url', async () => {
    const calls = recordCalls({ hostedUrl: 'http://h/cal/a.ics', editToken: 't' });
    const mapping = { SUMMARY: '${SUMMARY}', DESCRIPTION: '', LOCATION: '', DTSTART: '', DTEND: '' };
    const sources = [
      { url: 'https://w/cal.ics', label: 'Work' },
      { url: 'https://h/cal.ics', prefix: '[Home] ' },
    ];
    await publishCalendar({ id: 'a', name: 'A', sources, mapping }, null);
    expect(calls[0]).toEqual({ path: '/api/calendars', method: 'POST', body: { id: 'a', name: 'A', sources, mapping } });
  });

  it('carry a 429 as the server words it', async () => {
    stubFetch(429, { error: 'too many requests from your address: try again in 12 seconds' });
    await expect(fetchFeed('https://x/c.ics')).rejects.toEqual(new ApiError(429, 'too many requests from your address: try again in 12 seconds'));
  });
});

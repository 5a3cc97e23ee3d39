// The server's real answers (ui/test-fixtures/api, written and checked against the server by
// tests/api_fixtures.rs) read with the UI's schemas. The schemas are lenient, so a key renamed on
// the server would silently read as its default: every key the UI reads must be in the answer with
// the value the UI ends up with.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorAnswer, parseFeedAnswer, parseMappingRender, parsePreviewAnswer, parsePublishAnswer, parseTemplateRender } from './api';
import { problemFromServer } from './options';

const fixturePath = (name: string) => new URL(`../../test-fixtures/api/${name}.json`, import.meta.url);
const fixture = (name: string): Record<string, unknown> => JSON.parse(readFileSync(fixturePath(name), 'utf8')) as Record<string, unknown>;

/**
 * Every key of `read` comes from `answer` unchanged, except the keys of `absent`: those the server
 * leaves out when they have no value, read as the value given.
 */
function expectReadAsSent(read: object, answer: Record<string, unknown>, absent: Record<string, unknown> = {}) {
  for (const [key, value] of Object.entries(read)) {
    if (key in answer) expect(value, `${key} as the UI reads it`).toEqual(answer[key]);
    else if (key in absent) expect(value, `${key} when the server leaves it out`).toEqual(absent[key]);
    else expect.fail(`the UI reads ${key}, which the server's answer does not have`);
  }
}

describe("the server's answers as the UI reads them", () => {
  it('GET /api/feed', () => {
    const answer = fixture('feed');
    const feed = parseFeedAnswer(answer);
    // A feed of one address says nothing of sources (POST /api/feed with sources does).
    expectReadAsSent(feed, answer, { stale: null, sources: [], eventSources: [], uidsChanged: null });
    expect(feed.events.length).toBeGreaterThan(0);
    expect(feed.warnings.length).toBeGreaterThan(0);
  });

  // Written by tests/api_fixtures.rs once the server merges sources; until then there is nothing to hold the UI to.
  it.skipIf(!existsSync(fixturePath('feed-merged')))('POST /api/feed with sources', () => {
    const answer = fixture('feed-merged');
    const feed = parseFeedAnswer(answer);
    // Each source leaves out what it has no value for: checked one by one below.
    const rest: Partial<typeof feed> = { ...feed };
    delete rest.sources;
    expectReadAsSent(rest, answer, { stale: null, url: '', uidsChanged: null });
    const sources = answer.sources as Record<string, unknown>[];
    expect(feed.sources.length).toBeGreaterThan(1);
    feed.sources.forEach((source, i) => expectReadAsSent(source, sources[i] ?? {}, { fetchedAt: null, stale: null, error: null, uidsChanged: null }));
    expect(feed.eventSources).toHaveLength(feed.events.length);
    expect(feed.eventSources.every((index) => index >= 0 && index < feed.sources.length)).toBe(true);
  });

  it('POST /api/render with a mapping', () => {
    const answer = fixture('render-mapping');
    const render = parseMappingRender(answer);
    expectReadAsSent(render, answer);
    expect(render.errors.length).toBeGreaterThan(0);
  });

  it('POST /api/render with a template', () => {
    const answer = fixture('render-template');
    const render = parseTemplateRender(answer);
    expectReadAsSent(render, answer);
    expect(render.errors.length).toBeGreaterThan(0);
  });

  it('POST /api/calendars, first publish and republish', () => {
    const created = fixture('publish-created');
    expectReadAsSent(parsePublishAnswer(created), created);
    const updated = fixture('publish-updated');
    expectReadAsSent(parsePublishAnswer(updated), updated, { editToken: null });
  });

  it('POST /api/preview, and its error naming the path in the config', () => {
    const answer = fixture('preview');
    const preview = parsePreviewAnswer(answer);
    expectReadAsSent(preview, answer);
    expect(preview.decisions.some((d) => !d.kept && d.reason)).toBe(true);
    const error = fixture('preview-error');
    const failure = errorAnswer(400, JSON.stringify(error));
    expectReadAsSent({ error: failure.message, field: failure.field }, error);
    expect(problemFromServer(failure)).toEqual({ path: 'filters[0].pattern', message: error.error });
  });

  it('an error answer', () => {
    const answer = fixture('error');
    const failure = errorAnswer(400, JSON.stringify(answer));
    expectReadAsSent({ error: failure.message, field: failure.field }, answer);
  });
});

describe('the check itself', () => {
  it('fails when the UI reads a key the server does not send', () => {
    const answer = { ...fixture('feed') };
    delete answer.eventCount;
    answer.event_count = 2;
    expect(() => expectReadAsSent(parseFeedAnswer(answer), answer, { stale: null, sources: [], eventSources: [] })).toThrow(/eventCount/);
  });
});

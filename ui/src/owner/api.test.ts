// GET /api/owner against a stubbed fetch: the key sent, the answer read, the failures told by
// status, and the one rule for asking for the key (lib/siteKey.ts) around it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withSiteKey, type KeyDeps } from '../lib/siteKey';
import { errorMessage, fetchOwner, NOT_UNDERSTOOD, OWNER_KEY_PROMPTS, OwnerApiError, UNREACHABLE } from './api';

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

afterEach(() => {
  vi.unstubAllGlobals();
});

async function failure(promise: Promise<unknown>): Promise<OwnerApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OwnerApiError) return error;
    throw error;
  }
  throw new Error('no failure');
}

describe('fetching the owner page', () => {
  it('sends the key and reads the answer', async () => {
    const seen: Headers[] = [];
    vi.stubGlobal('fetch', (path: string, init: RequestInit) => {
      expect(path).toBe('/api/owner');
      seen.push(new Headers(init.headers));
      return Promise.resolve(json(200, { version: '0.1.0 (abc1234)', checks: [] }));
    });
    const owner = await fetchOwner('s3cret');
    expect(owner.version).toBe('0.1.0 (abc1234)');
    expect(owner.checks).toEqual([]);
    expect(seen[0]?.get('X-Publish-Key')).toBe('s3cret');
    await fetchOwner(null);
    expect(seen[1]?.has('X-Publish-Key')).toBe(false);
  });

  it('fails with the status and the server words', async () => {
    vi.stubGlobal('fetch', () => Promise.resolve(json(401, { error: 'the publish key is missing or wrong' })));
    const refused = await failure(fetchOwner(null));
    expect(refused.status).toBe(401);
    expect(refused.message).toBe('the publish key is missing or wrong');
    vi.stubGlobal('fetch', () => Promise.resolve(json(404, { error: 'not found' })));
    expect((await failure(fetchOwner('k'))).status).toBe(404);
  });

  it('fails with status 0 when the server is not reached or its answer is not understood', async () => {
    vi.stubGlobal('fetch', () => Promise.reject(new TypeError('Failed to fetch')));
    expect(await failure(fetchOwner('k'))).toMatchObject({ status: 0, message: UNREACHABLE });
    vi.stubGlobal('fetch', () => Promise.resolve(new Response('<html>', { status: 200 })));
    expect(await failure(fetchOwner('k'))).toMatchObject({ status: 0, message: NOT_UNDERSTOOD });
    vi.stubGlobal('fetch', () => Promise.resolve(json(200, [1, 2])));
    expect(await failure(fetchOwner('k'))).toMatchObject({ status: 0, message: NOT_UNDERSTOOD });
  });

  it('passes an abort on', async () => {
    vi.stubGlobal('fetch', () => Promise.reject(new DOMException('aborted', 'AbortError')));
    await expect(fetchOwner('k')).rejects.toThrow(DOMException);
  });

  it("reads the error's words from JSON, short text or the status", () => {
    expect(errorMessage(401, '{"error":" wrong key "}')).toBe('wrong key');
    expect(errorMessage(502, 'Bad gateway')).toBe('Bad gateway');
    expect(errorMessage(502, 'x'.repeat(301))).toBe('the server answered with status 502');
    expect(errorMessage(500, '{"error":""}')).toBe('{"error":""}');
    expect(errorMessage(500, '')).toBe('the server answered with status 500');
  });
});

describe('asking for the key', () => {
  const keyed = (key: string) => (_path: string, init: RequestInit) =>
    Promise.resolve(new Headers(init.headers).get('X-Publish-Key') === key ? json(200, { version: 'v' }) : json(401, { error: 'key needed' }));

  function deps(answers: (string | null)[], stored: string | null = null) {
    const asked: boolean[] = [];
    let kept = stored;
    const keyDeps: KeyDeps = {
      readKey: () => kept,
      writeKey: (key) => (kept = key),
      clearKey: () => (kept = null),
      askKey: (refused) => {
        asked.push(refused);
        return answers.shift() ?? null;
      },
    };
    return { keyDeps, asked, kept: () => kept };
  }

  it('asks on a 401, keeps the answer and retries; a wrong stored key is asked again', async () => {
    vi.stubGlobal('fetch', keyed('s3cret'));
    const fresh = deps(['s3cret']);
    const outcome = await withSiteKey((key) => fetchOwner(key), fresh.keyDeps);
    expect(outcome.kind).toBe('done');
    expect(fresh.asked).toEqual([false]);
    expect(fresh.kept()).toBe('s3cret');

    const stale = deps(['s3cret'], 'old');
    expect((await withSiteKey((key) => fetchOwner(key), stale.keyDeps)).kind).toBe('done');
    expect(stale.asked).toEqual([true]);
  });

  it('never asks on a site without a key (404), nor when the stored key works', async () => {
    vi.stubGlobal('fetch', () => Promise.resolve(json(404, { error: 'not found' })));
    const none = deps(['x']);
    expect(await withSiteKey((key) => fetchOwner(key), none.keyDeps)).toMatchObject({ kind: 'failed', status: 404 });
    expect(none.asked).toEqual([]);
    vi.stubGlobal('fetch', keyed('k'));
    const kept = deps([], 'k');
    expect((await withSiteKey((key) => fetchOwner(key), kept.keyDeps)).kind).toBe('done');
    expect(kept.asked).toEqual([]);
  });

  it('stops when the prompt is cancelled', async () => {
    vi.stubGlobal('fetch', keyed('k'));
    expect(await withSiteKey((key) => fetchOwner(key), deps([null]).keyDeps)).toEqual({ kind: 'cancelled' });
  });

  it("asks in the page's own words", () => {
    expect(OWNER_KEY_PROMPTS.ask).toMatch(/publish key/);
    expect(OWNER_KEY_PROMPTS.refused).toMatch(/not accepted/);
  });
});

// GET /api/owner with the site's key (X-Publish-Key; lib/siteKey.ts keeps it and holds the rule
// for asking): the answer read by owner.ts, or an OwnerApiError with the HTTP status (0: the
// server was not reached) and the server's words.
import { isRecord } from '../lib/json';
import { browserKeyDeps, type KeyDeps } from '../lib/siteKey';
import { parseOwner, type Owner } from './owner';

export class OwnerApiError extends Error {
  /** 0 when the server could not be reached or its answer could not be read. */
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'OwnerApiError';
    this.status = status;
  }
}

/** The page's words when the server wants the key. */
export const OWNER_KEY_PROMPTS = {
  ask: "The owner page needs this site's publish key. Publish key:",
  refused: 'That publish key was not accepted. Publish key:',
};

export const ownerKeyDeps: KeyDeps = browserKeyDeps(OWNER_KEY_PROMPTS);

export const UNREACHABLE = 'the server could not be reached';
export const NOT_UNDERSTOOD = 'the server sent an answer this page does not understand';

/** The `error` of a JSON body, else short text (a proxy's page), else the status. */
export function errorMessage(status: number, body: string): string {
  try {
    const answer: unknown = JSON.parse(body);
    if (isRecord(answer) && typeof answer.error === 'string' && answer.error.trim() !== '') return answer.error.trim();
  } catch {
    // Not JSON.
  }
  const text = body.trim();
  return text !== '' && text.length <= 300 ? text : `the server answered with status ${status}`;
}

export async function fetchOwner(key: string | null, signal?: AbortSignal): Promise<Owner> {
  let response: Response;
  try {
    response = await fetch('/api/owner', {
      headers: { Accept: 'application/json', ...(key ? { 'X-Publish-Key': key } : {}) },
      cache: 'no-store',
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new OwnerApiError(0, UNREACHABLE);
  }
  if (!response.ok) throw new OwnerApiError(response.status, errorMessage(response.status, await response.text()));
  let owner: Owner | null;
  try {
    owner = parseOwner(await response.json());
  } catch {
    owner = null;
  }
  if (!owner) throw new OwnerApiError(0, NOT_UNDERSTOOD);
  return owner;
}

/** POST /api/owner/notifications/test: resolves when the server says it was delivered. */
export async function sendTestNotification(key: string | null): Promise<void> {
  let response: Response;
  try {
    response = await fetch('/api/owner/notifications/test', {
      method: 'POST',
      headers: { Accept: 'application/json', ...(key ? { 'X-Publish-Key': key } : {}) },
      cache: 'no-store',
    });
  } catch {
    throw new OwnerApiError(0, UNREACHABLE);
  }
  if (!response.ok) throw new OwnerApiError(response.status, errorMessage(response.status, await response.text()));
}

// Calls that may need this site's publish key (publishing, and reading feeds in the editor): the
// stored key is sent; on a 401 the visitor is asked for it (once more if the stored one was
// refused), it is kept, and the call is retried.
import { ApiError } from './api';

export interface KeyDeps {
  readKey(): string | null;
  writeKey(key: string): void;
  clearKey(): void;
  /** Asks the visitor; null or blank when they cancel. `refused`: a key was sent and refused. */
  askKey(refused: boolean): string | null;
}

export type KeyedOutcome<T> =
  | { kind: 'done'; value: T }
  | { kind: 'cancelled' }
  /** `status` 0: not an answer from the server (unreachable, or not an HTTP failure). */
  | { kind: 'failed'; message: string; status: number };

const MAX_ATTEMPTS = 4;

export async function withPublishKey<T>(action: (key: string | null) => Promise<T>, deps: KeyDeps): Promise<KeyedOutcome<T>> {
  let key = deps.readKey();
  for (let attempt = 1; ; attempt += 1) {
    try {
      return { kind: 'done', value: await action(key) };
    } catch (error) {
      if (!(error instanceof ApiError)) {
        return { kind: 'failed', message: error instanceof Error ? error.message : String(error), status: 0 };
      }
      if (error.status !== 401 || attempt >= MAX_ATTEMPTS) return { kind: 'failed', message: error.message, status: error.status };
      const refused = key !== null;
      if (refused) deps.clearKey();
      const answer = deps.askKey(refused)?.trim() ?? '';
      if (answer === '') return { kind: 'cancelled' };
      deps.writeKey(answer);
      key = answer;
    }
  }
}

/**
 * A refusal about the visitor rather than what they asked for: no key (401) or too many requests
 * from their address (429). The server's message says what to do; no other text should frame it.
 */
export const aboutTheVisitor = (status: number): boolean => status === 401 || status === 429;

export const PUBLISH_KEY_PROMPT = 'This site needs its publish key to read feeds and publish calendars. Publish key:';
export const PUBLISH_KEY_REFUSED_PROMPT = 'That publish key was not accepted. Publish key:';

// Asking for the site's key when making a vault or a shared deck needs it (lib/siteKey.ts holds
// the rule): the question waits here until a dialog on screen (KeyDialog.tsx, on the sync page and
// in the Share dialog) answers it, instead of the browser's bare prompt, which could not say which
// key it wants or whom to ask. With no dialog on screen the question is cancelled.

export interface KeyQuestion {
  /** A key was sent and refused. */
  refused: boolean;
  /** The key given, or null for "Cancel". */
  answer(key: string | null): void;
}

let current: KeyQuestion | null = null;
let answerers = 0;
const listeners = new Set<() => void>();

const emit = () => {
  for (const listener of listeners) listener();
};

/** The question waiting for an answer, if any. */
export const currentKeyQuestion = (): KeyQuestion | null => current;

export function subscribeKeyQuestion(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Marks a place that answers questions (a mounted dialog host) for as long as it is there; the
 * function returned removes it.
 */
export function addAnswerer(): () => void {
  answerers += 1;
  let removed = false;
  return () => {
    if (removed) return;
    removed = true;
    answerers -= 1;
    // The last place that could answer is gone: the question is cancelled, not left waiting.
    if (answerers === 0) current?.answer(null);
  };
}

/** Asks for the key; resolves with what the visitor gave, or null when cancelled. */
export function askSyncKey(refused: boolean): Promise<string | null> {
  if (answerers === 0) return Promise.resolve(null);
  current?.answer(null);
  return new Promise((resolve) => {
    const question: KeyQuestion = {
      refused,
      answer(key) {
        if (current !== question) return;
        current = null;
        emit();
        resolve(key);
      },
    };
    current = question;
    emit();
  });
}

/** Answers every question with `ask` (for tests, which have no dialog). */
export function answerKeyQuestionsWith(ask: (refused: boolean) => string | null): () => void {
  const remove = addAnswerer();
  const listener = () => {
    const question = current;
    if (question) question.answer(ask(question.refused));
  };
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
    remove();
  };
}

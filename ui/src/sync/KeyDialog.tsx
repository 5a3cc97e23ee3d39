// The question for the site's key (keyQuestion.ts), in a modal dialog that says which key it is
// (the sync key the site's owner gives the learners they invite), whom to ask, and that this
// browser keeps it; "Cancel" or Escape stops what needed it. Rendered where a vault or a shared
// deck is made: the sync page and the Share dialog.
import { useEffect, useId, useRef, useState, useSyncExternalStore } from 'react';
import { KeyRound } from 'lucide-react';
import { useProfile } from '../lib/ProfileContext';
import { addAnswerer, currentKeyQuestion, subscribeKeyQuestion, type KeyQuestion } from './keyQuestion';
import { keyQuestionText, KEY_REFUSED } from './words';

/** Shows the key question while one waits (and, while mounted, lets questions be asked). */
export function KeyQuestionHost() {
  useEffect(() => addAnswerer(), []);
  const question = useSyncExternalStore(subscribeKeyQuestion, currentKeyQuestion, currentKeyQuestion);
  return question ? <KeyDialog key={String(question.refused)} question={question} /> : null;
}

function KeyDialog({ question }: { question: KeyQuestion }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const [value, setValue] = useState('');
  const profile = useProfile();
  const id = useId();

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    element.showModal();
    input.current?.focus();
    return () => element.close();
  }, []);

  return (
    <dialog
      ref={dialog}
      className="dialog key-dialog"
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-text`}
      onCancel={(event) => {
        event.preventDefault();
        question.answer(null);
      }}
    >
      <form
        className="dialog__panel"
        onSubmit={(event) => {
          event.preventDefault();
          if (value.trim() !== '') question.answer(value.trim());
        }}
      >
        <h2 id={`${id}-title`}>
          <KeyRound aria-hidden="true" size={20} /> This site’s sync key
        </h2>
        <div id={`${id}-text`} className="question-dialog__text">
          {question.refused && (
            <p className="alert alert--warning" role="alert">
              {KEY_REFUSED}
            </p>
          )}
          <p>{keyQuestionText(profile?.name ?? '')}</p>
        </div>
        <label className="field">
          Sync key
          <input
            ref={input}
            className="input"
            type="password"
            autoComplete="off"
            spellCheck={false}
            value={value}
            onChange={(event) => setValue(event.target.value)}
          />
        </label>
        <div className="dialog__actions question-dialog__actions">
          <button type="button" className="button" onClick={() => question.answer(null)}>
            Cancel
          </button>
          <button type="submit" className="button button--primary" disabled={value.trim() === ''}>
            Use this key
          </button>
        </div>
      </form>
    </dialog>
  );
}

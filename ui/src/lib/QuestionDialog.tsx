// A question asked in a modal dialog before something that would lose work or cannot be undone:
// its title, what it is about (read out with it), and its answers, the safe one first. The safe
// answer takes the focus, and Escape (the dialog's cancel) gives it too. The deck editor's leave
// question and sync's "Replace the sync link?" are asked with it.
import { useEffect, useId, useRef, type ReactNode } from 'react';

interface Props {
  title: string;
  /** What the question is about: its paragraphs. */
  children: ReactNode;
  /** The answer that changes nothing: first, focused, and what Escape gives. */
  safeAnswer: string;
  onSafe: () => void;
  /** The other answers, after the safe one. */
  answers: ReactNode;
  /** The dialog's own class, beside `dialog question-dialog`. */
  className: string;
}

export function QuestionDialog({ title, children, safeAnswer, onSafe, answers, className }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const safe = useRef<HTMLButtonElement>(null);
  const id = useId();

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    element.showModal();
    safe.current?.focus();
    return () => element.close();
  }, []);

  return (
    <dialog
      ref={dialog}
      className={`dialog question-dialog ${className}`}
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-text`}
      onCancel={(event) => {
        event.preventDefault();
        onSafe();
      }}
    >
      <div className="dialog__panel">
        <h2 id={`${id}-title`}>{title}</h2>
        <div id={`${id}-text`} className="question-dialog__text">
          {children}
        </div>
        <div className="dialog__actions question-dialog__actions">
          <button ref={safe} type="button" className="button" onClick={onSafe}>
            {safeAnswer}
          </button>
          {answers}
        </div>
      </div>
    </dialog>
  );
}

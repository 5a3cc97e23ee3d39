// The question asked when the visitor leaves the deck editor with unsaved changes that this
// browser could not keep as a draft (a full quota, storage disabled): keep editing, leave (and
// lose them) or save and leave. With a draft kept, leaving asks nothing (editorSession.ts).
import './LeaveDialog.css';
import { useEffect, useId, useRef } from 'react';
import { displayName } from './deck';

interface Props {
  name: string;
  canSave: boolean;
  onStay: () => void;
  onLeave: () => void;
  onSave: () => void;
}

export function LeaveDialog({ name, canSave, onStay, onLeave, onSave }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const stay = useRef<HTMLButtonElement>(null);
  const id = useId();

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    element.showModal();
    // The safe answer takes the focus: Enter or Escape keeps the visitor here.
    stay.current?.focus();
    return () => element.close();
  }, []);

  return (
    <dialog
      ref={dialog}
      className="dialog leave-dialog"
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-text`}
      onCancel={(event) => {
        event.preventDefault();
        onStay();
      }}
    >
      <div className="dialog__panel">
        <h2 id={`${id}-title`}>Leave with unsaved changes?</h2>
        <p id={`${id}-text`}>
          Your changes to “{displayName(name)}” are not saved, and this browser could not keep them as a draft: its storage is full or turned off. If you leave,
          they are lost.
        </p>
        <div className="dialog__actions leave-dialog__actions">
          <button ref={stay} type="button" className="button" onClick={onStay}>
            Keep editing
          </button>
          <button type="button" className="button button--quiet" onClick={onLeave}>
            Leave
          </button>
          {canSave && (
            <button type="button" className="button button--primary" onClick={onSave}>
              Save and leave
            </button>
          )}
        </div>
      </div>
    </dialog>
  );
}

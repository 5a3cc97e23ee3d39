// The question asked before "Replace the sync link": what replacing does (a new link; the old one
// stops working; the other devices must open the new one), with keeping the link as the safe answer.
import { useEffect, useId, useRef } from 'react';

interface Props {
  onKeep: () => void;
  onReplace: () => void;
}

export function ReplaceLinkDialog({ onKeep, onReplace }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const keep = useRef<HTMLButtonElement>(null);
  const id = useId();

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    element.showModal();
    // The safe answer takes the focus: Enter or Escape keeps the link.
    keep.current?.focus();
    return () => element.close();
  }, []);

  return (
    <dialog
      ref={dialog}
      className="dialog replace-dialog"
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-text`}
      onCancel={(event) => {
        event.preventDefault();
        onKeep();
      }}
    >
      <div className="dialog__panel">
        <h2 id={`${id}-title`}>Replace the sync link?</h2>
        <div id={`${id}-text`} className="replace-dialog__text">
          <p>This browser syncs first, then moves your decks to a new encrypted vault with a new link and key.</p>
          <p>
            The old link stops working: a device that still has it (a lost phone, say) can no longer read or change your decks. Your other devices keep their
            decks but must open the new link to keep syncing.
          </p>
        </div>
        <div className="dialog__actions replace-dialog__actions">
          <button ref={keep} type="button" className="button" onClick={onKeep}>
            Keep this link
          </button>
          <button type="button" className="button button--primary" onClick={onReplace}>
            Replace the link
          </button>
        </div>
      </div>
    </dialog>
  );
}

// The question asked when the visitor leaves an editor (a deck's, a calendar's) with unsaved
// changes that this browser could not keep as a draft (a full quota, storage disabled): keep
// editing, leave (and lose them) or save and leave. With a draft kept, leaving asks nothing
// (lib/drafts.ts, flashcards/editorSession.ts).
import { QuestionDialog } from './QuestionDialog';

interface Props {
  /** What is being edited, as the page shows its name. */
  name: string;
  /** Whether "Save and leave" is offered (a deck that cannot be saved yet offers no such way). */
  canSave?: boolean;
  onStay: () => void;
  onLeave: () => void;
  onSave: () => void;
}

export function LeaveDialog({ name, canSave = true, onStay, onLeave, onSave }: Props) {
  return (
    <QuestionDialog
      title="Leave with unsaved changes?"
      className="leave-dialog"
      safeAnswer="Keep editing"
      onSafe={onStay}
      answers={
        <>
          <button type="button" className="button button--quiet" onClick={onLeave}>
            Leave
          </button>
          {canSave && (
            <button type="button" className="button button--primary" onClick={onSave}>
              Save and leave
            </button>
          )}
        </>
      }
    >
      <p>
        Your changes to “{name}” are not saved, and this browser could not keep them as a draft: its storage is full or turned off. If you leave, they are lost.
      </p>
    </QuestionDialog>
  );
}

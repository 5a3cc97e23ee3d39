// The question asked when the visitor leaves the calendar editor with unsaved changes that this
// browser could not keep as a draft (a full quota, storage disabled): keep editing, leave (and
// lose them) or save and leave. With a draft kept, leaving asks nothing (lib/drafts.ts).
import { QuestionDialog } from '../lib/QuestionDialog';

interface Props {
  name: string;
  onStay: () => void;
  onLeave: () => void;
  onSave: () => void;
}

export function LeaveDialog({ name, onStay, onLeave, onSave }: Props) {
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
          <button type="button" className="button button--primary" onClick={onSave}>
            Save and leave
          </button>
        </>
      }
    >
      <p>
        Your changes to “{name}” are not saved, and this browser could not keep them as a draft: its storage is full or turned off. If you leave, they are lost.
      </p>
    </QuestionDialog>
  );
}

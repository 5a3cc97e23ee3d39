// The question asked before "Replace the sync link": what replacing does (a new link; the old one
// stops working; the other devices must open the new one), with keeping the link as the safe answer.
import { QuestionDialog } from '../lib/QuestionDialog';

interface Props {
  onKeep: () => void;
  onReplace: () => void;
}

export function ReplaceLinkDialog({ onKeep, onReplace }: Props) {
  return (
    <QuestionDialog
      title="Replace the sync link?"
      className="replace-dialog"
      safeAnswer="Keep this link"
      onSafe={onKeep}
      answers={
        <button type="button" className="button button--primary" onClick={onReplace}>
          Replace the link
        </button>
      }
    >
      <p>This browser syncs first, then moves your decks to a new encrypted vault with a new link and key.</p>
      <p>
        The old link stops working: a device that still has it (a lost phone, say) can no longer read or change your decks. Your other devices keep their decks
        but must open the new link to keep syncing.
      </p>
    </QuestionDialog>
  );
}

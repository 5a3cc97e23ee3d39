// The notice of an editor (a deck's, a calendar's) that opened on a draft this browser kept:
// when it is from, and the way to drop it. The rules of keeping drafts are in drafts.ts.
import { X } from 'lucide-react';
import { restoredMessage } from './drafts';

interface Props {
  /** When the draft was written, as the draft keeps it (null when it does not say). */
  savedAt: string | null;
  onDiscard: () => void;
}

export function DraftNotice({ savedAt, onDiscard }: Props) {
  return (
    <div className="draft-notice" role="status">
      <p>{restoredMessage(savedAt)}</p>
      <button type="button" className="button button--quiet" onClick={onDiscard}>
        <X aria-hidden="true" size={16} />
        Discard changes
      </button>
    </div>
  );
}

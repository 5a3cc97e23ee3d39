// "Export as Anki package (.apkg)" on the deck list: the export's state (writing, written with
// what it holds, or why it could not be) said in a small panel fixed to the bottom of the screen,
// so nothing on the page moves when it appears; the words go to a status region (an error to an
// alert) that is always there, so screen readers hear them.
import './PackageExport.css';
import { useCallback, useState } from 'react';
import { X } from 'lucide-react';
import { displayName } from './deck';
import { exportDeckPackage } from './exportFiles';
import { packageSummaryText } from './io/apkg/exportPackage';
import { deckStore } from './storage';

export type PackageExportState = { kind: 'working' | 'done' | 'error'; text: string } | null;

/** The export's state, a function that exports the stored deck `id`, and one that dismisses the panel. */
export function usePackageExport(): [PackageExportState, (id: string) => void, () => void] {
  const [state, setState] = useState<PackageExportState>(null);
  const start = useCallback((id: string) => {
    const deck = deckStore.readDeck(id);
    if (!deck) return;
    const name = displayName(deck.name);
    setState({ kind: 'working', text: `Writing the Anki package of “${name}”…` });
    exportDeckPackage(deck).then(
      (summary) => setState({ kind: 'done', text: packageSummaryText(name, summary) }),
      (error: unknown) =>
        setState({ kind: 'error', text: `The Anki package of “${name}” could not be written. ${error instanceof Error ? error.message : String(error)}` }),
    );
  }, []);
  const dismiss = useCallback(() => setState(null), []);
  return [state, start, dismiss];
}

export function PackageExportStatus({ state, onDismiss }: { state: PackageExportState; onDismiss: () => void }) {
  return (
    <div className={state ? `package-export package-export--${state.kind}` : 'package-export package-export--idle'}>
      <p role="status" className="package-export__text">
        {state && state.kind !== 'error' ? state.text : ''}
      </p>
      <p role="alert" className="package-export__text">
        {state?.kind === 'error' ? state.text : ''}
      </p>
      {state && state.kind !== 'working' && (
        <button type="button" className="icon-button package-export__close" aria-label="Dismiss the export message" onClick={onDismiss}>
          <X aria-hidden="true" size={18} />
        </button>
      )}
    </div>
  );
}

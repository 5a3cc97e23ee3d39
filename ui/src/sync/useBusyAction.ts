// One action at a time on a sync screen: busy while it runs (its buttons disabled), and its
// failure kept as a message to show. `after` runs once it is over, either way.
import { useState } from 'react';

export function useBusyAction(after?: () => void) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
      after?.();
    }
  };
  return { busy, error, run };
}

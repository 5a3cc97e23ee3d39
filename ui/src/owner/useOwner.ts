// The owner page's checks: one on opening and one per "Check again", each with the site's key
// (asked for on a 401 by lib/siteKey.ts's one rule). Only the newest check's answer counts; one
// that comes after the page was left is dropped.
import { startTransition, useCallback, useEffect, useReducer, useState } from 'react';
import { withSiteKey } from '../lib/siteKey';
import { fetchOwner, ownerKeyDeps } from './api';
import { initialOwnerState, ownerReducer, type OwnerState } from './state';

export function useOwner(): { state: OwnerState; check: () => void } {
  const [state, dispatch] = useReducer(ownerReducer, initialOwnerState);
  const [round, setRound] = useState(0);
  const checking = state.kind === 'loading' || (state.kind === 'ready' && state.checking);

  useEffect(() => {
    const abort = new AbortController();
    void withSiteKey((key) => fetchOwner(key, abort.signal), ownerKeyDeps).then((outcome) => {
      if (abort.signal.aborted) return;
      // Drawn in slices (a transition, as the first render in main.tsx): the answer fills every section.
      if (outcome.kind === 'done') startTransition(() => dispatch({ type: 'loaded', owner: outcome.value, at: new Date() }));
      else if (outcome.kind === 'cancelled') dispatch({ type: 'cancelled' });
      else dispatch({ type: 'failed', status: outcome.status, message: outcome.message });
    });
    return () => abort.abort();
  }, [round]);

  const check = useCallback(() => {
    if (checking) return;
    dispatch({ type: 'check' });
    setRound((r) => r + 1);
  }, [checking]);

  return { state, check };
}

// The deck list renders its cards in slices so opening it with hundreds of decks stays quick
// (issue 26): the first slice fills the screen the list opens on, the rest follow in later tasks,
// below the fold, so nothing on screen moves. Pure sizes here; useRenderSlices is the hook.
import { startTransition, useEffect, useState } from 'react';

/** The smallest height a deck card takes (a compact line), in CSS pixels. */
export const MIN_CARD_HEIGHT = 48;
/** Cards rendered per later slice. */
export const SLICE = 60;

/** Cards in the first slice: more than fit in a viewport `height` px tall, at least 12. */
export function firstSlice(height: number): number {
  const fit = Number.isFinite(height) && height > 0 ? Math.ceil(height / MIN_CARD_HEIGHT) : 0;
  return Math.max(12, fit + 2);
}

/** The next number of cards to render after `shown`, never more than `total`. */
export function nextSlice(shown: number, total: number): number {
  return Math.min(total, shown + SLICE);
}

/** How many of `total` items to render now; grows a slice per task until all are. */
export function useRenderSlices(total: number): number {
  const [shown, setShown] = useState(() => firstSlice(typeof window === 'undefined' ? 0 : window.innerHeight));
  useEffect(() => {
    if (shown >= total) return undefined;
    // After the browser has painted what is there, in a task of its own; a transition so typing
    // in the search or a click is never held up by it.
    const timer = setTimeout(() => startTransition(() => setShown((current) => nextSlice(current, total))), 0);
    return () => clearTimeout(timer);
  }, [shown, total]);
  return Math.min(shown, total);
}

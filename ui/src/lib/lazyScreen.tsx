// A screen whose code loads on first visit (React's lazy), which can be fetched before it renders.
// Once its code is here it renders at once: lazy alone suspends on first render even then, which
// shows "Loading…" and draws the screen a second time.
import { lazy, useState, type ComponentType } from 'react';
import { preloadable } from './preload';

/** Code that can be fetched before it is needed. */
export interface Loadable {
  /** Fetches the code (once). */
  load: () => Promise<unknown>;
}

export interface LazyScreen<P extends object> extends Loadable {
  Screen: ComponentType<P>;
}

export function lazyScreen<P extends object>(fetch: () => Promise<ComponentType<P>>): LazyScreen<P> {
  const code = preloadable(fetch);
  const Lazy = lazy(() => code.load().then((component) => ({ default: component })));
  function Screen(props: P) {
    // Chosen once per mount: a screen mounted through Lazy keeps it (a switch would remount it).
    const [Component] = useState<ComponentType<P>>(() => code.loaded() ?? Lazy);
    return <Component {...props} />;
  }
  return { load: code.load, Screen };
}

// Focus and announcement after an in-app route change: a screen reader or keyboard user lands on
// the new page's main heading (as after a full page load) instead of on <body> or on the link
// they left. A page that puts focus somewhere itself (practice puts it on the card) keeps it.
import { useEffect, useRef, useState } from 'react';

// Set by the landing page's own navigation, which mounts the router: that first route is a change.
let landingNavigated = false;

/** The landing page (outside the router) is about to open a route. */
export function markInAppNavigation(): void {
  landingNavigated = true;
}

/** How long a lazily loaded page may take to show its heading. */
const WAIT_MS = 5000;
/** Lets the page's own effects (which may place focus) run before deciding. */
const SETTLE_MS = 60;

/**
 * Where focus goes once the new page shows: its h1 (made focusable with tabIndex -1), unless the
 * page already focused something inside main. Returns what to announce, or null for nothing.
 */
export function placeRouteFocus(main: HTMLElement | null, active: Element | null): string | null {
  if (!main) return null;
  const heading = main.querySelector('h1');
  const pageChoseFocus = active !== null && active !== main && main.contains(active) && active !== document.body;
  const title = (heading?.textContent ?? document.title).trim();
  if (pageChoseFocus || !heading) return title;
  if (!heading.hasAttribute('tabindex')) heading.setAttribute('tabindex', '-1');
  heading.focus({ preventScroll: false });
  // Focusing the heading announces it; the live region stays quiet to avoid saying it twice.
  return null;
}

/** Runs placeRouteFocus after every change of `path` (not on the first page load). */
export function RouteFocus({ path }: { path: string }) {
  const first = useRef(true);
  const [announcement, setAnnouncement] = useState('');

  useEffect(() => {
    if (first.current) {
      first.current = false;
      if (!landingNavigated) return;
    }
    landingNavigated = false;
    let cancelled = false;
    let timer: number | undefined;
    const started = performance.now();
    const look = () => {
      if (cancelled) return;
      const main = document.getElementById('main');
      const ready = main?.querySelector('h1') && !main.querySelector('.loading');
      if (!ready && performance.now() - started < WAIT_MS) {
        timer = window.setTimeout(look, 50);
        return;
      }
      timer = window.setTimeout(() => {
        if (cancelled) return;
        const said = placeRouteFocus(main, document.activeElement);
        setAnnouncement(said === null ? '' : `${said}, page loaded`);
      }, SETTLE_MS);
    };
    look();
    return () => {
      cancelled = true;
      window.clearTimeout(timer);
    };
  }, [path]);

  return (
    <p className="visually-hidden" aria-live="polite" aria-atomic="true">
      {announcement}
    </p>
  );
}

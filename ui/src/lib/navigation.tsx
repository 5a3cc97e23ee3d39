// In-app links that work with or without the router. The landing page renders without
// react-router (it stays out of the first download); the router provides its own navigation
// once any tool is opened. Both supply `navigate` and the current path through this context.
import { createContext, useContext, type AnchorHTMLAttributes, type MouseEvent } from 'react';

export interface Navigation {
  path: string;
  navigate: (to: string) => void;
}

export const NavigationContext = createContext<Navigation>({
  path: typeof window === 'undefined' ? '/' : window.location.pathname,
  navigate: (to) => {
    window.location.assign(to);
  },
});

export function useNavigation(): Navigation {
  return useContext(NavigationContext);
}

/** Whether a click should be left to the browser (new tab, download, modified click). */
function isPlainLeftClick(event: MouseEvent<HTMLAnchorElement>): boolean {
  return event.button === 0 && !event.metaKey && !event.ctrlKey && !event.shiftKey && !event.altKey;
}

export interface AppLinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> {
  to: string;
  /** Mark the link as current when the path starts with `to` (exactly equal for "/"). */
  activeClassName?: string;
}

export function AppLink({ to, activeClassName, className, onClick, ...rest }: AppLinkProps) {
  const { path, navigate } = useNavigation();
  const active = to === '/' ? path === '/' : path === to || path.startsWith(`${to}/`);
  const classes = [className, active ? activeClassName : undefined].filter(Boolean).join(' ');
  return (
    <a
      {...rest}
      href={to}
      className={classes || undefined}
      aria-current={activeClassName && active ? 'page' : undefined}
      onClick={(event) => {
        onClick?.(event);
        if (event.defaultPrevented || !isPlainLeftClick(event)) return;
        event.preventDefault();
        navigate(to);
      }}
    />
  );
}

// The frame around every screen: a header with the site name linking home, and the main landmark.
import type { ReactNode } from 'react';
import { useProfile } from '../lib/ProfileContext';
import { AppLink } from '../lib/navigation';

export function Layout({ children }: { children: ReactNode }) {
  const profile = useProfile();
  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="site-header">
        <div className="site-header__inner">
          <AppLink to="/" className="site-header__home">
            {profile?.name ?? ''}
          </AppLink>
          <nav aria-label="Tools" className="site-header__nav">
            <AppLink to="/flashcards" activeClassName="active">
              Flashcards
            </AppLink>
            <AppLink to="/calendars" activeClassName="active">
              Calendars
            </AppLink>
          </nav>
        </div>
      </header>
      <main id="main" className="site-main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}

// The frame around every screen: a header with the site name linking home, and the main landmark.
import { Link, NavLink, Outlet } from 'react-router';
import { useProfile } from '../lib/ProfileContext';

export function Layout() {
  const profile = useProfile();
  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="site-header">
        <div className="site-header__inner">
          <Link to="/" className="site-header__home">
            {profile?.name ?? ''}
          </Link>
          <nav aria-label="Tools" className="site-header__nav">
            <NavLink to="/flashcards">Flashcards</NavLink>
            <NavLink to="/calendars">Calendars</NavLink>
          </nav>
        </div>
      </header>
      <main id="main" className="site-main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}

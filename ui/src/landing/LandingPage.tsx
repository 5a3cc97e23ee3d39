// The landing page (SPEC.md section 1): profile picture, the owner's name, an About button and
// four icon links. The two external links show only when the owner configured them.
import { useRef } from 'react';
import { CalendarDays, Hexagon, Info, Layers, Music } from 'lucide-react';
import { AppLink } from '../lib/navigation';
import { useProfile } from '../lib/ProfileContext';
import { useDocumentTitle } from '../lib/useDocumentTitle';
import { AboutDialog, type AboutDialogHandle } from './AboutDialog';

export function LandingPage() {
  const profile = useProfile();
  const about = useRef<AboutDialogHandle>(null);
  useDocumentTitle(profile?.name ?? '');

  if (!profile) {
    return <section className="landing" aria-busy="true" />;
  }

  return (
    <section className="landing">
      <img className="landing__avatar" src={profile.avatarUrl} alt="Profile picture" width={128} height={128} fetchPriority="high" decoding="async" />
      <h1 className="landing__name">{profile.name}</h1>
      <button type="button" className="button button--quiet" onClick={() => about.current?.open()}>
        <Info aria-hidden="true" size={18} />
        About
      </button>
      <ul className="landing__links" aria-label="Links">
        {profile.spotifyUrl && (
          <li>
            <a className="icon-link" href={profile.spotifyUrl} target="_blank" rel="noopener noreferrer">
              <Music aria-hidden="true" />
              <span>Spotify</span>
            </a>
          </li>
        )}
        <li>
          <AppLink className="icon-link" to="/calendars">
            <CalendarDays aria-hidden="true" />
            <span>Calendars</span>
          </AppLink>
        </li>
        {profile.beehiveUrl && (
          <li>
            <a className="icon-link" href={profile.beehiveUrl} target="_blank" rel="noopener noreferrer">
              <Hexagon aria-hidden="true" />
              <span>Beehive</span>
            </a>
          </li>
        )}
        <li>
          <AppLink className="icon-link" to="/flashcards">
            <Layers aria-hidden="true" />
            <span>Flashcards</span>
          </AppLink>
        </li>
      </ul>
      <AboutDialog ref={about} name={profile.name} about={profile.about} />
    </section>
  );
}

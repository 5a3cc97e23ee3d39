// Makes the owner's profile available to every screen.
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { fetchProfile, readEmbeddedProfile, type Profile } from './profile';

const ProfileContext = createContext<Profile | null>(null);

export function ProfileProvider({ children }: { children: ReactNode }) {
  const [profile, setProfile] = useState<Profile | null>(() => readEmbeddedProfile(document));

  useEffect(() => {
    if (profile) return;
    let cancelled = false;
    void fetchProfile().then((p) => {
      if (!cancelled && p) setProfile(p);
    });
    return () => {
      cancelled = true;
    };
  }, [profile]);

  return <ProfileContext.Provider value={profile}>{children}</ProfileContext.Provider>;
}

/** The profile, or null while the dev server is still fetching it. */
export function useProfile(): Profile | null {
  return useContext(ProfileContext);
}

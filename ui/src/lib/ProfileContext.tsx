// Makes the owner's profile available to every screen, and lets the owner page show a saved
// profile at once (the server already serves it; this is the copy the open app holds).
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { fetchProfile, readEmbeddedProfile, type Profile } from './profile';

const ProfileContext = createContext<Profile | null>(null);
const ReplaceProfileContext = createContext<(profile: Profile) => void>(() => undefined);

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

  return (
    <ReplaceProfileContext.Provider value={setProfile}>
      <ProfileContext.Provider value={profile}>{children}</ProfileContext.Provider>
    </ReplaceProfileContext.Provider>
  );
}

/** The profile, or null while the dev server is still fetching it. */
export function useProfile(): Profile | null {
  return useContext(ProfileContext);
}

/** Shows `profile` in place of the one the app holds (after the owner saved it). */
export function useReplaceProfile(): (profile: Profile) => void {
  return useContext(ReplaceProfileContext);
}

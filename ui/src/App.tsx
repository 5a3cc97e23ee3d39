// The app's two modes. At "/" the landing page renders on its own, so the first download holds
// no router; the first in-app navigation (or any other address) loads the router with every
// route of the spec (SPEC.md section 2).
import { Suspense, useEffect, useState } from 'react';
import { Layout } from './layout/Layout';
import { Loading } from './layout/Loading';
import { LandingPage } from './landing/LandingPage';
import { NavigationContext } from './lib/navigation';
import { markInAppNavigation } from './lib/routeFocus';
import { ProfileProvider } from './lib/ProfileContext';
import { routerApp } from './screens';

const RouterApp = routerApp.Screen;

function LandingShell({ onNavigate }: { onNavigate: (to: string) => void }) {
  useEffect(() => {
    // Fetch the router while the visitor reads, so the first click is instant.
    const prefetch = () => void routerApp.load();
    if ('requestIdleCallback' in window) window.requestIdleCallback(prefetch);
    else setTimeout(prefetch, 200);
  }, []);
  return (
    <NavigationContext.Provider value={{ path: '/', navigate: onNavigate }}>
      <Layout>
        <LandingPage />
      </Layout>
    </NavigationContext.Provider>
  );
}

export function App() {
  const [routed, setRouted] = useState(() => window.location.pathname !== '/');
  const navigate = (to: string) => {
    if (to === '/') return;
    markInAppNavigation();
    window.history.pushState(null, '', to);
    setRouted(true);
  };
  return (
    <ProfileProvider>
      {routed ? (
        <Suspense fallback={<Loading />}>
          <RouterApp />
        </Suspense>
      ) : (
        <LandingShell onNavigate={navigate} />
      )}
    </ProfileProvider>
  );
}

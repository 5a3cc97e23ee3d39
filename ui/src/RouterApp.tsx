// Every route of the spec under the shared layout. The tools load on first visit.
import { lazy, Suspense, useEffect } from 'react';
import { BrowserRouter, Outlet, Route, Routes, useLocation, useNavigate } from 'react-router';
import { Layout } from './layout/Layout';
import { Loading } from './layout/Loading';
import { NotFoundPage } from './layout/NotFoundPage';
import { LandingPage } from './landing/LandingPage';
import { NavigationContext } from './lib/navigation';
import { SlotsContext, type Slots } from './lib/slots';
import { readVault, startBackgroundSync } from './sync/engine';
import { ShareDeckButton } from './sync/ShareDeckButton';
import { SyncBadge } from './sync/SyncBadge';

const FlashcardRoutes = lazy(() => import('./flashcards/FlashcardRoutes'));
const CalendarRoutes = lazy(() => import('./calendars/CalendarRoutes'));
const SyncRoutes = lazy(() => import('./sync/SyncRoutes'));

// Sync's controls in the flashcard screens (the features do not import each other).
const slots: Slots = { deckListActions: SyncBadge, deckEditorActions: ShareDeckButton };

function RoutedLayout() {
  const location = useLocation();
  const navigate = useNavigate();
  useEffect(() => {
    // A browser that syncs keeps syncing in the background on every screen.
    if (readVault()) startBackgroundSync();
  }, []);
  return (
    <NavigationContext.Provider value={{ path: location.pathname, navigate: (to) => void navigate(to) }}>
      <SlotsContext.Provider value={slots}>
        <Layout>
          <Suspense fallback={<Loading />}>
            <Outlet />
          </Suspense>
        </Layout>
      </SlotsContext.Provider>
    </NavigationContext.Provider>
  );
}

export default function RouterApp() {
  return (
    <BrowserRouter>
      <Routes>
        <Route element={<RoutedLayout />}>
          <Route index element={<LandingPage />} />
          <Route path="flashcards/*" element={<FlashcardRoutes />} />
          <Route path="calendars/*" element={<CalendarRoutes />} />
          <Route path="sync/*" element={<SyncRoutes />} />
          <Route path="*" element={<NotFoundPage />} />
        </Route>
      </Routes>
    </BrowserRouter>
  );
}

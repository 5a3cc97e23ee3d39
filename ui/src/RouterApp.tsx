// Every route of the spec under the shared layout. The tools load on first visit (screens.ts). A data router
// (not <BrowserRouter>), so a screen can hold navigation back (useBlocker) while it has unsaved work.
// Also where the features meet without importing each other: sync's controls go into the flashcard
// screens' slots, and the flashcards' and calendars' data adapters are handed to sync.
import { Suspense, useEffect, useState } from 'react';
import { createBrowserRouter, Outlet, RouterProvider, useLocation, useNavigate } from 'react-router';
import { Layout } from './layout/Layout';
import { Loading } from './layout/Loading';
import { NotFoundPage } from './layout/NotFoundPage';
import { LandingPage } from './landing/LandingPage';
import { NavigationContext } from './lib/navigation';
import { RouteFocus } from './lib/routeFocus';
import { SlotsContext, type Slots } from './lib/slots';
import { provideSyncAdapters } from './lib/syncAdapters';
import { readVault, startBackgroundSync } from './sync/engine';
import { DeckShareStatus } from './sync/DeckShareStatus';
import { ShareDeckButton } from './sync/ShareDeckButton';
import { startShareFollowing } from './sync/shareUpdates';
import { SyncBadge } from './sync/SyncBadge';
import { useSyncStanding } from './sync/useSync';
import { calendarRoutes } from './calendars/screens';
import { flashcardRoutes, ownerRoutes, syncRoutes } from './screens';

// Each tool's part, declared in screens.ts so the start-up can fetch it with this one.
const FlashcardRoutes = flashcardRoutes.Screen;
const CalendarRoutes = calendarRoutes.Screen;
const SyncRoutes = syncRoutes.Screen;
const OwnerRoutes = ownerRoutes.Screen;

// Sync's controls in the flashcard screens (the features do not import each other).
const slots: Slots = { deckListActions: SyncBadge, deckEditorActions: ShareDeckButton, deckShareStatus: DeckShareStatus, syncStanding: useSyncStanding };

// What sync carries, each feature's own adapter; loaded when sync first needs them, so a calendar
// screen does not download the flashcards' code for a sync that is not running.
provideSyncAdapters(async () => {
  const [flashcards, calendars] = await Promise.all([import('./flashcards/syncAdapter'), import('./calendars/syncAdapter')]);
  return { decks: flashcards.decksSyncAdapter, calendars: calendars.calendarsSyncAdapter, media: flashcards.mediaSyncAdapter };
});

function RoutedLayout() {
  const location = useLocation();
  const navigate = useNavigate();
  useEffect(() => {
    // A browser that syncs keeps syncing in the background on every screen.
    if (readVault()) startBackgroundSync();
    // A deck shared from here follows its saves (nothing runs while no link was made here).
    startShareFollowing();
  }, []);
  return (
    <NavigationContext.Provider value={{ path: location.pathname, navigate: (to) => void navigate(to) }}>
      <SlotsContext.Provider value={slots}>
        <Layout>
          <RouteFocus path={location.pathname} />
          <Suspense fallback={<Loading />}>
            <Outlet />
          </Suspense>
        </Layout>
      </SlotsContext.Provider>
    </NavigationContext.Provider>
  );
}

const createRouter = () =>
  createBrowserRouter([
    {
      element: <RoutedLayout />,
      children: [
        { index: true, element: <LandingPage /> },
        { path: 'flashcards/*', element: <FlashcardRoutes /> },
        { path: 'calendars/*', element: <CalendarRoutes /> },
        { path: 'sync/*', element: <SyncRoutes /> },
        { path: 'owner', element: <OwnerRoutes /> },
        { path: '*', element: <NotFoundPage /> },
      ],
    },
  ]);

export default function RouterApp() {
  // Created on first render, not on import: it reads the address the app starts at.
  const [router] = useState(createRouter);
  return <RouterProvider router={router} />;
}

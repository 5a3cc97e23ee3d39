// Every route of the spec under the shared layout. The tools load on first visit. A data router
// (not <BrowserRouter>), so a screen can hold navigation back (useBlocker) while it has unsaved work.
import { lazy, Suspense, useState } from 'react';
import { createBrowserRouter, Outlet, RouterProvider, useLocation, useNavigate } from 'react-router';
import { Layout } from './layout/Layout';
import { Loading } from './layout/Loading';
import { NotFoundPage } from './layout/NotFoundPage';
import { LandingPage } from './landing/LandingPage';
import { NavigationContext } from './lib/navigation';

const FlashcardRoutes = lazy(() => import('./flashcards/FlashcardRoutes'));
const CalendarRoutes = lazy(() => import('./calendars/CalendarRoutes'));

function RoutedLayout() {
  const location = useLocation();
  const navigate = useNavigate();
  return (
    <NavigationContext.Provider value={{ path: location.pathname, navigate: (to) => void navigate(to) }}>
      <Layout>
        <Suspense fallback={<Loading />}>
          <Outlet />
        </Suspense>
      </Layout>
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
        { path: '*', element: <NotFoundPage /> },
      ],
    },
  ]);

export default function RouterApp() {
  // Created on first render, not on import: it reads the address the app starts at.
  const [router] = useState(createRouter);
  return <RouterProvider router={router} />;
}

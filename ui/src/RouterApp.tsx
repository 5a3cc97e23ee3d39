// Every route of the spec under the shared layout. The tools load on first visit.
import { lazy, Suspense } from 'react';
import { BrowserRouter, Outlet, Route, Routes, useLocation, useNavigate } from 'react-router';
import { Layout } from './layout/Layout';
import { Loading } from './layout/Loading';
import { NotFoundPage } from './layout/NotFoundPage';
import { LandingPage } from './landing/LandingPage';
import { NavigationContext } from './lib/navigation';
import { RouteFocus } from './lib/routeFocus';

const FlashcardRoutes = lazy(() => import('./flashcards/FlashcardRoutes'));
const CalendarRoutes = lazy(() => import('./calendars/CalendarRoutes'));

function RoutedLayout() {
  const location = useLocation();
  const navigate = useNavigate();
  return (
    <NavigationContext.Provider value={{ path: location.pathname, navigate: (to) => void navigate(to) }}>
      <Layout>
        <RouteFocus path={location.pathname} />
        <Suspense fallback={<Loading />}>
          <Outlet />
        </Suspense>
      </Layout>
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
          <Route path="*" element={<NotFoundPage />} />
        </Route>
      </Routes>
    </BrowserRouter>
  );
}

// Routes of the spec (SPEC.md section 2) inside the shared layout. The tools are loaded on first
// visit so the landing page stays light.
import { lazy, Suspense } from 'react';
import { BrowserRouter, Route, Routes } from 'react-router';
import { Layout } from './layout/Layout';
import { LandingPage } from './landing/LandingPage';
import { NotFoundPage } from './layout/NotFoundPage';
import { ProfileProvider } from './lib/ProfileContext';

const FlashcardRoutes = lazy(() => import('./flashcards/FlashcardRoutes'));
const CalendarRoutes = lazy(() => import('./calendars/CalendarRoutes'));

function Loading() {
  return (
    <p className="loading" role="status">
      Loading…
    </p>
  );
}

export function App() {
  return (
    <ProfileProvider>
      <BrowserRouter>
        <Routes>
          <Route element={<Layout />}>
            <Route index element={<LandingPage />} />
            <Route
              path="flashcards/*"
              element={
                <Suspense fallback={<Loading />}>
                  <FlashcardRoutes />
                </Suspense>
              }
            />
            <Route
              path="calendars/*"
              element={
                <Suspense fallback={<Loading />}>
                  <CalendarRoutes />
                </Suspense>
              }
            />
            <Route path="*" element={<NotFoundPage />} />
          </Route>
        </Routes>
      </BrowserRouter>
    </ProfileProvider>
  );
}

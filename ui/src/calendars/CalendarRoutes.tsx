// Routes of the calendar tool (SPEC.md 2): the list, and the editor at /calendars/new?id=&url=&name=.
// The editor (with its panels and dialogs) is its own part (screens.ts): the list and a phone's
// first visit do not parse it.
import { Suspense } from 'react';
import { Route, Routes } from 'react-router';
import { Loading } from '../layout/Loading';
import { CalendarListPage } from './CalendarListPage';
import { OfflineNotice } from './OfflineNotice';
import { calendarEditor } from './screens';
import './calendars.css';

const CalendarEditorRoute = calendarEditor.Screen;

function ListWithNotice() {
  // The editor says what offline means for it in its own words.
  return (
    <>
      <OfflineNotice />
      <CalendarListPage />
    </>
  );
}

export default function CalendarRoutes() {
  return (
    <Routes>
      <Route index element={<ListWithNotice />} />
      <Route
        path="new"
        element={
          <Suspense fallback={<Loading />}>
            <CalendarEditorRoute />
          </Suspense>
        }
      />
      <Route path="*" element={<ListWithNotice />} />
    </Routes>
  );
}

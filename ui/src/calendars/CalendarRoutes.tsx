// Routes of the calendar tool (SPEC.md 2): the list, and the editor at /calendars/new?id=&url=&name=.
import { Route, Routes } from 'react-router';
import { CalendarEditorRoute } from './CalendarEditorPage';
import { CalendarListPage } from './CalendarListPage';
import { OfflineNotice } from './OfflineNotice';
import './calendars.css';

export default function CalendarRoutes() {
  return (
    <>
      <OfflineNotice />
      <Routes>
        <Route index element={<CalendarListPage />} />
        <Route path="new" element={<CalendarEditorRoute />} />
        <Route path="*" element={<CalendarListPage />} />
      </Routes>
    </>
  );
}

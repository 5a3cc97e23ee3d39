// Routes of the calendar tool.
import { Route, Routes } from 'react-router';
import { useDocumentTitle } from '../lib/useDocumentTitle';

function CalendarListPage() {
  useDocumentTitle('Calendars');
  return (
    <section className="page">
      <h1>Calendars</h1>
    </section>
  );
}

export default function CalendarRoutes() {
  return (
    <Routes>
      <Route index element={<CalendarListPage />} />
      <Route path="*" element={<CalendarListPage />} />
    </Routes>
  );
}

// Routes of sync: /sync (make, join and watch this browser's sync) and /sync/deck (a shared deck).
import { Route, Routes } from 'react-router';
import { SharedDeckPage } from './SharedDeckPage';
import { SyncPage } from './SyncPage';
import './sync.css';

export default function SyncRoutes() {
  return (
    <Routes>
      <Route index element={<SyncPage />} />
      <Route path="deck" element={<SharedDeckPage />} />
      <Route path="*" element={<SyncPage />} />
    </Routes>
  );
}

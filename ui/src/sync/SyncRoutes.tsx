// Routes of sync: /sync (make, join and watch this browser's sync), /sync/deck (a shared deck) and
// /sync/update/:deckId (the review of an update to a deck added from a link).
import { Route, Routes } from 'react-router';
import { SharedDeckPage } from './SharedDeckPage';
import { ShareUpdatePage } from './ShareUpdatePage';
import { SyncPage } from './SyncPage';
import './sync.css';

export default function SyncRoutes() {
  return (
    <Routes>
      <Route index element={<SyncPage />} />
      <Route path="deck" element={<SharedDeckPage />} />
      <Route path="update/:deckId" element={<ShareUpdatePage />} />
      <Route path="*" element={<SyncPage />} />
    </Routes>
  );
}

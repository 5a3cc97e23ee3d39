// Routes of the flashcard tool.
import { Route, Routes } from 'react-router';
import { useDocumentTitle } from '../lib/useDocumentTitle';

function DeckListPage() {
  useDocumentTitle('Your Decks');
  return (
    <section className="page">
      <h1>Your Decks</h1>
    </section>
  );
}

export default function FlashcardRoutes() {
  return (
    <Routes>
      <Route index element={<DeckListPage />} />
      <Route path="*" element={<DeckListPage />} />
    </Routes>
  );
}

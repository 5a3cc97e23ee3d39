// Routes of the flashcard tool (SPEC.md section 2): deck list, editor (new and edit) and practice.
import { Route, Routes } from 'react-router';
import { DeckEditorRoute } from './DeckEditorPage';
import { DeckListPage } from './DeckListPage';
import { PracticePage } from './PracticePage';
import './flashcards.css';

export default function FlashcardRoutes() {
  return (
    <Routes>
      <Route index element={<DeckListPage />} />
      <Route path="new" element={<DeckEditorRoute />} />
      <Route path=":id/edit" element={<DeckEditorRoute />} />
      <Route path=":id/practice" element={<PracticePage />} />
      <Route path="*" element={<DeckListPage />} />
    </Routes>
  );
}

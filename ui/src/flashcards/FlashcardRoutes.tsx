// Routes of the flashcard tool (SPEC.md section 2): deck list, editor (new and edit) and practice;
// beyond the spec, "Review due" (practice of the due cards only) and a deck's progress.
import { Route, Routes } from 'react-router';
import { DeckEditorRoute } from './DeckEditorPage';
import { DeckListPage } from './DeckListPage';
import { PracticePage } from './PracticePage';
import { ProgressPage } from './ProgressPage';
import './flashcards.css';

export default function FlashcardRoutes() {
  return (
    <Routes>
      <Route index element={<DeckListPage />} />
      <Route path="new" element={<DeckEditorRoute />} />
      <Route path=":id/edit" element={<DeckEditorRoute />} />
      <Route path=":id/practice" element={<PracticePage mode="all" />} />
      <Route path=":id/review" element={<PracticePage mode="due" />} />
      <Route path=":id/progress" element={<ProgressPage />} />
      <Route path="*" element={<DeckListPage />} />
    </Routes>
  );
}

// Routes of the flashcard tool (SPEC.md section 2): deck list, editor (new and edit) and practice;
// beyond the spec, "Review due" (practice of the due cards only) and a deck's progress.
import { Route, Routes } from 'react-router';
// The shared rules first: each component's own file, imported by the component, comes after and wins ties.
import './flashcards.css';
import { DeckEditorRoute } from './DeckEditorPage';
import { DeckListPage } from './DeckListPage';
import { PracticePage } from './PracticePage';
import { ProgressPage } from './ProgressPage';

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

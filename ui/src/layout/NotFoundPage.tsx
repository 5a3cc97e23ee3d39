// Shown for addresses the app does not know (the server answers them with status 404).
import { ButtonLink } from '../lib/ButtonLink';
import { useDocumentTitle } from '../lib/useDocumentTitle';

export function NotFoundPage() {
  useDocumentTitle('Page not found');
  return (
    <section className="page page--narrow empty-state">
      <h1>Page not found</h1>
      <p>There is nothing at this address.</p>
      <ButtonLink look="primary" to="/">
        Go to the home page
      </ButtonLink>
    </section>
  );
}

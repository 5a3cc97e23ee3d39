// Once a calendar with "Agenda page" is published: the page's link and the <iframe> snippet that
// embeds it in another site (agenda.ts).
import { agendaJsonUrl, agendaUrl, iframeSnippet } from './agenda';
import { CopyField } from './CopyField';

interface Props {
  hostedUrl: string;
  name: string;
}

export function AgendaLinks({ hostedUrl, name }: Props) {
  const page = agendaUrl(hostedUrl);
  return (
    <section className="card cal-extra" aria-labelledby="cal-agenda-links-title">
      <h2 id="cal-agenda-links-title">Agenda page</h2>
      <p className="cal-extra__link">
        <a href={page} target="_blank" rel="noreferrer">
          {page}
        </a>
      </p>
      <CopyField id="cal-agenda-snippet" label="Snippet to embed it in your site" value={iframeSnippet(hostedUrl, name)} multiline />
      <p className="hint">
        The same events as JSON, for a site that draws its own: <code className="cal-extra__code">{agendaJsonUrl(hostedUrl)}</code>
      </p>
    </section>
  );
}

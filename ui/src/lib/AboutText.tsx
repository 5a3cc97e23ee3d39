// The owner's About text as paragraphs with links (lib/aboutText.ts parses it); every part is a
// React element or text node, never HTML. Links open in a new tab, as the landing page's do.
import { Fragment } from 'react';
import { parseAboutText } from './aboutText';

export function AboutText({ text }: { text: string }) {
  return (
    <>
      {parseAboutText(text).map((paragraph, p) => (
        <p key={p}>
          {paragraph.map((part, i) =>
            part.kind === 'link' ? (
              <a key={i} href={part.href} target="_blank" rel="noopener noreferrer">
                {part.text}
              </a>
            ) : part.kind === 'break' ? (
              <br key={i} />
            ) : (
              <Fragment key={i}>{part.text}</Fragment>
            ),
          )}
        </p>
      ))}
    </>
  );
}

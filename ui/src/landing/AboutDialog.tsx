// The About dialog. The spec shows no behaviour for About; this opens a small modal with the
// owner's About text (written on /owner: paragraphs and links, rendered as elements by
// lib/AboutText.tsx), or, until they write one, the owner's name and a line about the site. A
// native <dialog> traps focus and closes on Escape; a click on the backdrop closes it too.
import { useImperativeHandle, useRef, type Ref } from 'react';
import { X } from 'lucide-react';
import { AboutText } from '../lib/AboutText';

export interface AboutDialogHandle {
  open(): void;
}

export function AboutDialog({ name, about, ref }: { name: string; about: string | null; ref: Ref<AboutDialogHandle> }) {
  const dialog = useRef<HTMLDialogElement>(null);

  useImperativeHandle(ref, () => ({
    open() {
      dialog.current?.showModal();
    },
  }));

  return (
    <dialog
      ref={dialog}
      className="dialog"
      aria-labelledby="about-title"
      onClick={(event) => {
        // Clicks inside the panel land on its children; only the backdrop hits the dialog itself.
        if (event.target === dialog.current) dialog.current.close();
      }}
    >
      <div className="dialog__panel">
        <div className="dialog__header">
          <h2 id="about-title">About</h2>
          <button type="button" className="icon-button" aria-label="Close" onClick={() => dialog.current?.close()}>
            <X aria-hidden="true" size={18} />
          </button>
        </div>
        {about ? (
          <div className="dialog__text">
            <AboutText text={about} />
          </div>
        ) : (
          <p>
            This is the personal website of <strong>{name}</strong>: practice a language with flashcards, or subscribe to calendars remapped for your calendar
            app.
          </p>
        )}
      </div>
    </dialog>
  );
}

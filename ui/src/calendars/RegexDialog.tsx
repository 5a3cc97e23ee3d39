// The regex dialog (SPEC.md 2): builds a token for one sample field with an optional
// substitution, shows the server's live result for the sample, and inserts the token into the
// target mapping field. A native modal <dialog> traps focus and closes on Escape; a click on the
// backdrop closes it too; focus goes back to the button that opened it.
import { useEffect, useId, useLayoutEffect, useMemo, useRef, useState, type SyntheticEvent } from 'react';
import { TriangleAlert, X } from 'lucide-react';
import { renderTemplate, type TemplateRender } from './api';
import type { MappingField } from './calendar';
import type { SampleEvent } from './samples';
import { calendarStore } from './storage';
import { buildToken, FLAG_LIST } from './token';
import { useLatestRender } from './useLatest';

const FLAG_HINTS: Record<string, string> = {
  g: 'replace all matches',
  i: 'ignore case',
  m: '^ and $ match at line breaks',
  s: '. matches line breaks',
  U: 'swap greedy and lazy',
};

export const REPLACEMENT_PLACEHOLDER = 'Use $1..$9 for groups, $& for the whole match, \\n for a new line, \\t for a tab';

interface Props {
  field: string;
  target: MappingField;
  event: SampleEvent;
  onInsert: (token: string) => void;
  onClose: () => void;
}

const renderRequest = (request: { event: SampleEvent; template: string }) =>
  renderTemplate(request.event, request.template, calendarStore.readPublishKey());

export function RegexDialog({ field, target, event, onInsert, onClose }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const patternInput = useRef<HTMLInputElement>(null);
  const [pattern, setPattern] = useState('');
  const [replacement, setReplacement] = useState('');
  const [flags, setFlags] = useState('');
  const ids = useId();
  const titleId = `${ids}-title`;

  useLayoutEffect(() => {
    const element = dialog.current;
    const opener = document.activeElement;
    if (element && !element.open) element.showModal();
    // showModal focuses the first control (Close); typing a pattern is what comes next.
    patternInput.current?.focus();
    return () => {
      if (element?.open) element.close();
      // The dialog leaves the DOM when closed; the browser's own focus return needs it to stay.
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
    };
  }, []);

  const token = buildToken(field, pattern, replacement, flags);
  const request = useMemo(() => ({ event, template: token }), [event, token]);
  const rendered = useLatestRender<{ event: SampleEvent; template: string }, TemplateRender>(request, renderRequest, 150);

  // Escape, the backdrop and the buttons all end in the dialog's close event.
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    // A close queued by an unmount that React undid (StrictMode) finds the dialog open again.
    const closed = () => {
      if (!element.open) onClose();
    };
    element.addEventListener('close', closed);
    return () => element.removeEventListener('close', closed);
  }, [onClose]);

  const toggleFlag = (flag: string) => setFlags((current) => (current.includes(flag) ? current.replace(flag, '') : current + flag));

  const submit = (e: SyntheticEvent) => {
    e.preventDefault();
    onInsert(token);
    dialog.current?.close();
  };

  const source = event[field] ?? '';
  const error = rendered.state === 'ready' ? rendered.value.errors[0] : undefined;

  return (
    <dialog
      ref={dialog}
      className="dialog cal-regex"
      aria-labelledby={titleId}
      onClick={(e) => {
        // Clicks inside the panel land on its children; only the backdrop hits the dialog itself.
        if (e.target === dialog.current) dialog.current.close();
      }}
    >
      <form className="dialog__panel" onSubmit={submit}>
        <div className="dialog__header">
          <h2 id={titleId}>
            Regex transform for {field} → insert into {target}
          </h2>
          <button type="button" className="icon-button" aria-label="Close" onClick={() => dialog.current?.close()}>
            <X aria-hidden="true" size={18} />
          </button>
        </div>

        <div className="field">
          <span id={`${ids}-source`}>Sample {field}</span>
          <pre className="cal-regex__sample" aria-labelledby={`${ids}-source`}>
            {source === '' ? <span className="hint">(empty in this event)</span> : source}
          </pre>
        </div>

        <label className="field">
          Pattern
          <input
            ref={patternInput}
            className="input cal-mono"
            value={pattern}
            onChange={(e) => setPattern(e.target.value)}
            placeholder="Leave empty to insert the value as it is"
            spellCheck={false}
            autoComplete="off"
          />
        </label>

        <fieldset className="cal-regex__flags">
          <legend>Flags</legend>
          {FLAG_LIST.map((flag) => (
            <label key={flag} className="cal-flag" title={FLAG_HINTS[flag]}>
              <input type="checkbox" checked={flags.includes(flag)} onChange={() => toggleFlag(flag)} aria-label={`${flag} (${FLAG_HINTS[flag] ?? ''})`} />
              <span className="cal-flag__letter" aria-hidden="true">
                {flag}
              </span>
              <span className="cal-flag__hint" aria-hidden="true">
                {FLAG_HINTS[flag]}
              </span>
            </label>
          ))}
        </fieldset>

        <label className="field">
          Replacement
          <input
            className="input cal-mono"
            value={replacement}
            onChange={(e) => setReplacement(e.target.value)}
            placeholder={REPLACEMENT_PLACEHOLDER}
            spellCheck={false}
            autoComplete="off"
          />
        </label>

        <div className="field">
          <span id={`${ids}-result`}>Result</span>
          <output className={`cal-regex__result${error ? ' cal-regex__result--error' : ''}`} aria-labelledby={`${ids}-result`} aria-live="polite">
            {rendered.state === 'failed' && <span className="error-text">Could not render: {rendered.message}</span>}
            {error && (
              <span className="cal-regex__error">
                <TriangleAlert aria-hidden="true" size={16} />
                <span>
                  <span className="visually-hidden">Warning: </span>
                  {error.message}
                </span>
              </span>
            )}
            {rendered.state === 'ready' && !error && (rendered.value.result === '' ? <span className="hint">(empty)</span> : rendered.value.result)}
          </output>
        </div>

        <p className="hint cal-regex__token">
          Token: <code>{token}</code>
        </p>

        <div className="cal-regex__actions">
          <button type="button" className="button" onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button type="submit" className="button button--primary">
            Insert token
          </button>
        </div>
      </form>
    </dialog>
  );
}

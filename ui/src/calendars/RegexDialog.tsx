// The regex dialog (SPEC.md 2): builds a token for one sample field with an optional
// substitution, shows the server's live result for the sample, and inserts the token into the
// chosen mapping field, replacing the field's plain token or adding to it. A native modal
// <dialog> traps focus and closes on Escape; a click on the backdrop closes it too (the editor
// keeps what was typed for the next opening); focus goes back to the button that opened it.
import { useEffect, useId, useLayoutEffect, useMemo, useRef, useState, type SyntheticEvent } from 'react';
import { TriangleAlert, X } from 'lucide-react';
import { renderTemplate, type TemplateRender } from './api';
import { isMappingField, MAPPING_FIELDS, type Mapping, type MappingField } from './calendar';
import { CheckRow } from './CheckRow';
import type { SampleEvent } from './samples';
import { siteKey } from '../lib/siteKey';
import { buildToken, FLAG_LIST, plainToken, replaceLabel, type PlaceMode } from './token';
import { useLatestRender } from './useLatest';

const FLAG_HINTS: Record<string, string> = {
  g: 'replace all matches',
  i: 'ignore case',
  m: '^ and $ match at line breaks',
  s: '. matches line breaks',
  U: 'swap greedy and lazy',
};

export const REPLACEMENT_PLACEHOLDER = 'Use $1..$9 for groups, $& for the whole match, \\n for a new line, \\t for a tab';

/** What was typed in the dialog, kept by the editor when a stray tap closes it. */
export interface RegexDraft {
  pattern: string;
  replacement: string;
  flags: string;
}

export const EMPTY_DRAFT: RegexDraft = { pattern: '', replacement: '', flags: '' };

interface Props {
  field: string;
  /** The mapping field last focused (DESCRIPTION if none): the first choice of target. */
  target: MappingField;
  mapping: Mapping;
  event: SampleEvent;
  draft: RegexDraft;
  onInsert: (token: string, target: MappingField, mode: PlaceMode) => void;
  /** `keep`: closed by the backdrop, so the draft is worth restoring next time. */
  onClose: (draft: RegexDraft, keep: boolean) => void;
}

const renderRequest = (request: { event: SampleEvent; template: string }) => renderTemplate(request.event, request.template, siteKey.read());

/** Replace when the target already holds the source field's plain token, else add to it. */
const defaultMode = (mapping: Mapping, target: MappingField, field: string): PlaceMode => (mapping[target].includes(plainToken(field)) ? 'replace' : 'append');

export function RegexDialog({ field, target: initialTarget, mapping, event, draft, onInsert, onClose }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const patternInput = useRef<HTMLInputElement>(null);
  const [pattern, setPattern] = useState(draft.pattern);
  const [replacement, setReplacement] = useState(draft.replacement);
  const [flags, setFlags] = useState(draft.flags);
  const [target, setTarget] = useState<MappingField>(initialTarget);
  const [mode, setMode] = useState<PlaceMode>(() => defaultMode(mapping, initialTarget, field));
  const restored = draft.pattern !== '' || draft.replacement !== '';
  const closing = useRef<{ keep: boolean }>({ keep: false });
  const ids = useId();
  const titleId = `${ids}-title`;
  const errorId = `${ids}-error`;
  const reasonId = `${ids}-reason`;

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
      if (!element.open) onClose({ pattern, replacement, flags }, closing.current.keep);
    };
    element.addEventListener('close', closed);
    return () => element.removeEventListener('close', closed);
  }, [onClose, pattern, replacement, flags]);

  const close = (keep: boolean) => {
    closing.current = { keep };
    dialog.current?.close();
  };

  const toggleFlag = (flag: string) => setFlags((current) => (current.includes(flag) ? current.replace(flag, '') : current + flag));

  const source = event[field] ?? '';
  const error = rendered.state === 'ready' ? rendered.value.errors[0] : undefined;
  const invalid = pattern !== '' && error !== undefined;

  const submit = (e: SyntheticEvent) => {
    e.preventDefault();
    // An invalid pattern would leave the field unchanged for every subscriber: refuse it.
    if (invalid) {
      patternInput.current?.focus();
      return;
    }
    onInsert(token, target, mode);
    close(false);
  };

  const chooseTarget = (value: string) => {
    if (!isMappingField(value)) return;
    setTarget(value);
    setMode(defaultMode(mapping, value, field));
  };

  return (
    <dialog
      ref={dialog}
      className="dialog cal-regex"
      aria-labelledby={titleId}
      onClick={(e) => {
        // Clicks inside the panel land on its children; only the backdrop hits the dialog itself.
        if (e.target === dialog.current) close(true);
      }}
    >
      <form className="dialog__panel" onSubmit={submit} noValidate>
        <div className="dialog__header">
          <h2 id={titleId}>
            Regex transform for {field} → insert into {target}
          </h2>
          <button type="button" className="icon-button" aria-label="Close" onClick={() => close(false)}>
            <X aria-hidden="true" size={18} />
          </button>
        </div>

        {restored && (
          <p className="hint" role="status">
            Your last pattern for {field} is back, as you left it.
          </p>
        )}

        <div className="field">
          <span id={`${ids}-source`}>Sample {field}</span>
          <pre className="cal-regex__sample" aria-labelledby={`${ids}-source`}>
            {source === '' ? <span className="hint">(empty in this event)</span> : source}
          </pre>
        </div>

        <div className="field">
          <label htmlFor={`${ids}-pattern`}>Pattern</label>
          <input
            id={`${ids}-pattern`}
            ref={patternInput}
            className="input cal-mono"
            value={pattern}
            onChange={(e) => setPattern(e.target.value)}
            placeholder="Leave empty to insert the value as it is"
            spellCheck={false}
            autoComplete="off"
            autoCapitalize="off"
            aria-invalid={invalid || undefined}
            aria-describedby={invalid ? errorId : `${ids}-pattern-hint`}
          />
          <span id={`${ids}-pattern-hint`} className="hint cal-regex__hint">
            Leave empty to insert the value as it is.
          </span>
        </div>

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

        <div className="field">
          <label htmlFor={`${ids}-replacement`}>Replacement</label>
          <input
            id={`${ids}-replacement`}
            className="input cal-mono"
            value={replacement}
            onChange={(e) => setReplacement(e.target.value)}
            placeholder={REPLACEMENT_PLACEHOLDER}
            spellCheck={false}
            autoComplete="off"
            autoCapitalize="off"
            aria-describedby={`${ids}-replacement-hint`}
          />
          {/* The placeholder is cut on a phone and gone once typing starts: the same words stay here. */}
          <span id={`${ids}-replacement-hint`} className="hint cal-regex__hint">
            {REPLACEMENT_PLACEHOLDER}.
          </span>
        </div>

        <div className="field">
          <span id={`${ids}-result`}>Result</span>
          <output className={`cal-regex__result${error ? ' cal-regex__result--error' : ''}`} aria-labelledby={`${ids}-result`} aria-live="polite">
            {rendered.state === 'failed' && <span className="error-text">Could not render: {rendered.message}</span>}
            {error && (
              <span className="cal-regex__error" id={errorId}>
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

        <div className="cal-regex__place">
          <label className="field">
            Insert into
            <select className="select" value={target} onChange={(e) => chooseTarget(e.target.value)}>
              {MAPPING_FIELDS.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </label>
          <fieldset className="cal-regex__mode">
            <legend>How</legend>
            <CheckRow type="radio" name={`${ids}-mode`} checked={mode === 'replace'} onChange={() => setMode('replace')}>
              {replaceLabel(mapping[target], field, target)}
            </CheckRow>
            <CheckRow type="radio" name={`${ids}-mode`} checked={mode === 'append'} onChange={() => setMode('append')}>
              Add to {target} (at the cursor, or at the end)
            </CheckRow>
          </fieldset>
        </div>

        <p className="hint cal-regex__token">
          Token: <code>{token}</code>
        </p>

        <div className="cal-regex__actions">
          {invalid && (
            <p id={reasonId} className="error-text cal-regex__reason">
              Fix the pattern to insert the token: it is not a valid regular expression.
            </p>
          )}
          <button type="button" className="button" onClick={() => close(false)}>
            Cancel
          </button>
          <button type="submit" className="button button--primary" disabled={invalid} aria-describedby={invalid ? reasonId : undefined}>
            Insert token
          </button>
        </div>
      </form>
    </dialog>
  );
}

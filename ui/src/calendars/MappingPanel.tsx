// 'Template Mapping' (SPEC.md 2): one template per mapped field, the server's error for a field
// under it, and a cloud of the sample's tokens that insert at the cursor of the field last used.
import type { RefObject } from 'react';
import type { MappingRender, TemplateError } from './api';
import type { Rendered } from './useLatest';
import { MAPPING_FIELDS, type Mapping, type MappingField } from './calendar';
import { MAPPING_ROWS, rowsStyle } from './mappingRows';

export const MAPPING_PLACEHOLDER = 'Use tokens like ${SUMMARY} ${LOCATION}';

interface Props {
  mapping: Mapping;
  errors: TemplateError[];
  tokens: string[];
  fieldRefs: RefObject<Partial<Record<MappingField, HTMLTextAreaElement | null>>>;
  onChange: (field: MappingField, value: string) => void;
  onFocusField: (field: MappingField) => void;
  onToken: (token: string) => void;
  /** The sample rendered with the mapping; null before there is a sample. */
  rendered: Rendered<MappingRender> | null;
}

export function MappingPanel({ mapping, errors, tokens, fieldRefs, onChange, onFocusField, onToken, rendered }: Props) {
  return (
    <section className="card cal-panel cal-mapping" aria-labelledby="cal-mapping-title">
      <div className="cal-panel__head">
        <h2 id="cal-mapping-title">Template Mapping</h2>
      </div>
      {MAPPING_FIELDS.map((field) => {
        const fieldErrors = errors.filter((e) => e.field === field);
        const errorId = `cal-map-${field}-error`;
        const resultId = `cal-map-${field}-result`;
        const result = rendered?.state === 'ready' ? rendered.value.fields[field] : undefined;
        return (
          <div className="field" key={field}>
            <label htmlFor={`cal-map-${field}`} className="cal-mono">
              {field}
            </label>
            <textarea
              id={`cal-map-${field}`}
              ref={(element) => {
                fieldRefs.current[field] = element;
              }}
              className="textarea"
              rows={MAPPING_ROWS[field]}
              style={rowsStyle(MAPPING_ROWS[field])}
              value={mapping[field]}
              placeholder={MAPPING_PLACEHOLDER}
              spellCheck={false}
              aria-invalid={fieldErrors.length > 0 || undefined}
              aria-describedby={fieldErrors.length > 0 ? errorId : undefined}
              onFocus={() => onFocusField(field)}
              onChange={(e) => onChange(field, e.target.value)}
            />
            {fieldErrors.length > 0 && (
              <p id={errorId} className="error-text cal-field-error">
                {fieldErrors.map((e) => `At character ${e.position + 1}: ${e.message}`).join(' · ')}
              </p>
            )}
            {/* On a phone the preview panel is far below: each field shows its own result under it. */}
            {rendered && (
              <p id={resultId} className="cal-map__result" data-field={field}>
                <span className="cal-map__result-label">Result: </span>
                {result === undefined ? '…' : result === '' ? <span className="hint">(empty)</span> : result}
              </p>
            )}
          </div>
        );
      })}
      <div className="cal-tokens">
        <h3 id="cal-tokens-title" className="cal-tokens__title">
          Available tokens
        </h3>
        {tokens.length === 0 ? (
          <p className="hint">The fields of the sample event show here once the feed is read.</p>
        ) : (
          <ul className="cal-tokens__list" aria-labelledby="cal-tokens-title">
            {tokens.map((key) => (
              <li key={key}>
                <button
                  type="button"
                  className="cal-token"
                  // Keeps the caret where it is in the field being edited.
                  onMouseDown={(e) => e.preventDefault()}
                  onClick={() => onToken(`\${${key}}`)}
                >
                  {`\${${key}}`}
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}

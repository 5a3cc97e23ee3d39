// How tall the Template Mapping textareas are (SPEC.md 2): DESCRIPTION 6 rows, the others 2. Each
// grows with its text (field-sizing in calendars.css), which ignores the rows attribute, so the
// rows also go to the stylesheet as --rows, the height it never shrinks below.
import type { CSSProperties } from 'react';
import type { MappingField } from './calendar';

export const MAPPING_ROWS: Readonly<Record<MappingField, number>> = { SUMMARY: 2, DESCRIPTION: 6, LOCATION: 2, DTSTART: 2, DTEND: 2 };

/**
 * The textarea's rows as calendars.css reads them: a custom property, which React sets through the
 * CSSOM (the Content-Security-Policy's style-src 'self' refuses style attributes, not that).
 */
export function rowsStyle(rows: number): CSSProperties & { '--rows': string } {
  return { '--rows': String(rows) };
}

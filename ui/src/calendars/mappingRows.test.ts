import { describe, expect, it } from 'vitest';
import { MAPPING_FIELDS } from './calendar';
import { MAPPING_ROWS, rowsStyle } from './mappingRows';

describe('the Template Mapping textareas', () => {
  it('are 6 rows for DESCRIPTION and 2 for the other fields (SPEC.md 2)', () => {
    expect(Object.keys(MAPPING_ROWS).sort()).toEqual([...MAPPING_FIELDS].sort());
    for (const field of MAPPING_FIELDS) expect(MAPPING_ROWS[field]).toBe(field === 'DESCRIPTION' ? 6 : 2);
  });

  it('hand their rows to the stylesheet, the height they grow from', () => {
    expect(rowsStyle(6)).toEqual({ '--rows': '6' });
    expect(rowsStyle(MAPPING_ROWS.SUMMARY)).toEqual({ '--rows': '2' });
  });
});

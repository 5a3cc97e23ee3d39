// A server failure told in an alert, where the input it is about has no place on screen (Build &
// Host, Unpublish, a feed that cannot be read): the input's name from the answer's `field`, then
// the server's words. The field comes as sent (see ApiError); nothing is read out of the words.
import { ApiError } from './api';

const NAMES: Readonly<Record<string, string>> = {
  url: 'feed address',
  name: 'name',
  id: 'calendar id',
};

const SOURCE_INPUTS: Readonly<Record<string, string>> = { url: 'address', label: 'label', prefix: 'prefix', auth: 'login' };

/**
 * What the editor calls the input at `field`: 'feed address', 'SUMMARY template', 'feed 2
 * address' (`sources[1].url`), else the path.
 */
export function fieldName(field: string): string {
  const named = NAMES[field];
  if (named) return named;
  const source = /^sources\[(\d+)\](?:\.(\w+))?$/.exec(field);
  if (source) return `feed ${Number(source[1]) + 1} ${SOURCE_INPUTS[source[2] ?? 'url'] ?? source[2] ?? ''}`.trim();
  if (field === 'sources') return 'feeds';
  return field.startsWith('mapping.') ? `${field.slice('mapping.'.length)} template` : field;
}

/** The server's words, after the input's name when the failure is about one. */
export function failureText(message: string, error: unknown): string {
  const field = error instanceof ApiError ? error.field : null;
  return field === null ? message : `${fieldName(field)}: ${message}`;
}

// The owner's site editor on the server (src/site/edit.rs), with the site's key like the rest of
// the owner page (the page's answer carries the editor's first view): PUT/DELETE /api/owner/site (the texts; DELETE: the flags' values again,
// picture included) and PUT/DELETE /api/owner/avatar. Every answer is the editor's view after the
// change; a refusal is an OwnerApiError, with the field it names when it names one.
import { isRecord } from '../lib/json';
import { errorMessage, OwnerApiError, UNREACHABLE, NOT_UNDERSTOOD } from './api';
import { parseOwnerSite, type OwnerSite, type SiteFields } from './siteForm';

/** A refusal that names the field it is about (`name`, `about`, `spotifyUrl`, `beehiveUrl`, `avatar`). */
export class SiteApiError extends OwnerApiError {
  readonly field: string | null;
  constructor(status: number, message: string, field: string | null) {
    super(status, message);
    this.name = 'SiteApiError';
    this.field = field;
  }
}

function fieldOf(body: string): string | null {
  try {
    const answer: unknown = JSON.parse(body);
    return isRecord(answer) && typeof answer.field === 'string' ? answer.field : null;
  } catch {
    return null;
  }
}

async function call(method: string, path: string, key: string | null, body?: { type: string; data: BodyInit }): Promise<OwnerSite> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers: {
        Accept: 'application/json',
        ...(key ? { 'X-Publish-Key': key } : {}),
        ...(body ? { 'Content-Type': body.type } : {}),
      },
      cache: 'no-store',
      ...(body ? { body: body.data } : {}),
    });
  } catch {
    throw new SiteApiError(0, UNREACHABLE, null);
  }
  if (!response.ok) {
    const said = await response.text();
    throw new SiteApiError(response.status, errorMessage(response.status, said), fieldOf(said));
  }
  let site: OwnerSite | null;
  try {
    site = parseOwnerSite(await response.json());
  } catch {
    site = null;
  }
  if (!site) throw new SiteApiError(0, NOT_UNDERSTOOD, null);
  return site;
}

export const saveTexts = (key: string | null, fields: SiteFields) =>
  call('PUT', '/api/owner/site', key, {
    type: 'application/json',
    data: JSON.stringify({ name: fields.name, about: fields.about, spotifyUrl: fields.spotifyUrl, beehiveUrl: fields.beehiveUrl }),
  });

/** Back to the flags' values, texts and picture. */
export const restoreDefaults = (key: string | null) => call('DELETE', '/api/owner/site', key);

export const uploadPicture = (key: string | null, picture: Blob) => call('PUT', '/api/owner/avatar', key, { type: picture.type, data: picture });

export const removePicture = (key: string | null) => call('DELETE', '/api/owner/avatar', key);

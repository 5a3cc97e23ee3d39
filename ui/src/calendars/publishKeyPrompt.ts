// The calendar editor's key deps: the site's one stored key (lib/siteKey.ts), asked for with the
// editor's own words only when the server wants one (see withSiteKey).
import { browserKeyDeps as keyDepsWith, type KeyDeps } from '../lib/siteKey';
import { PUBLISH_KEY_PROMPT, PUBLISH_KEY_REFUSED_PROMPT } from './publish';

export const browserKeyDeps: KeyDeps = keyDepsWith({ ask: PUBLISH_KEY_PROMPT, refused: PUBLISH_KEY_REFUSED_PROMPT });

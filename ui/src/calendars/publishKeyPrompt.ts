// This browser's publish key: kept by the storage module, asked for with a prompt only when the
// server wants one (see withPublishKey).
import { PUBLISH_KEY_PROMPT, PUBLISH_KEY_REFUSED_PROMPT, type KeyDeps } from './publish';
import { calendarStore } from './storage';

export const browserKeyDeps: KeyDeps = {
  readKey: () => calendarStore.readPublishKey(),
  writeKey: (key) => void calendarStore.writePublishKey(key),
  clearKey: () => calendarStore.clearPublishKey(),
  askKey: (refused) => window.prompt(refused ? PUBLISH_KEY_REFUSED_PROMPT : PUBLISH_KEY_PROMPT),
};

// Announcements between features that may not import each other: a feature that saved something
// sync carries says so (sync then pushes soon), and sync says when it wrote what came from another
// device (screens that show stored data then read it again). Plain window events, no payload.

const LOCAL = 'hearth:local-change';
const SYNCED = 'hearth:synced';

function announce(name: string) {
  if (typeof window !== 'undefined') window.dispatchEvent(new Event(name));
}

function listen(name: string, onEvent: () => void): () => void {
  window.addEventListener(name, onEvent);
  return () => window.removeEventListener(name, onEvent);
}

/** Decks, review logs or calendars were saved in this browser. */
export const announceLocalChange = () => announce(LOCAL);
export const onLocalChange = (handler: () => void) => listen(LOCAL, handler);

/** Sync wrote data from another device into this browser's storage. */
export const announceSynced = () => announce(SYNCED);
export const onSynced = (handler: () => void) => listen(SYNCED, handler);

// Places where one feature shows another's controls without importing it: the app's router fills
// the slots (e.g. sync's Share button in the deck editor), a feature only marks where they go.
import { createContext, useContext, type ComponentType } from 'react';

export interface Slots {
  /** Beside the deck list's toolbar buttons. */
  deckListActions?: ComponentType;
  /** In the deck editor's toolbar, for a saved deck. */
  deckEditorActions?: ComponentType<{ deckId: string }>;
  /** Under a saved deck's pills in the list and under the editor's toolbar: whether it follows a share link. */
  deckShareStatus?: ComponentType<{ deckId: string }>;
  /** A hook: how this browser stands with sync (the storage notice's words follow it). */
  syncStanding?: () => SyncStanding;
}

/**
 * Whether this browser's decks are synced: 'off' (this server has no sync), 'offered' (it has,
 * this browser does not sync), 'on', or 'stopped' (the server no longer has its vault).
 */
export type SyncStanding = 'off' | 'offered' | 'on' | 'stopped';

export const SlotsContext = createContext<Slots>({});

export function DeckListActionsSlot() {
  const { deckListActions: Actions } = useContext(SlotsContext);
  return Actions ? <Actions /> : null;
}

export function DeckEditorActionsSlot({ deckId }: { deckId: string }) {
  const { deckEditorActions: Actions } = useContext(SlotsContext);
  return Actions ? <Actions deckId={deckId} /> : null;
}

/** How this browser stands with sync ('off' without the slot). */
export function useSyncStanding(): SyncStanding {
  const { syncStanding } = useContext(SlotsContext);
  // The slot holds one hook for the app's lifetime: it is called on every render, or on none.
  return syncStanding ? syncStanding() : 'off';
}

export function DeckShareStatusSlot({ deckId }: { deckId: string }) {
  const { deckShareStatus: Status } = useContext(SlotsContext);
  return Status ? <Status deckId={deckId} /> : null;
}

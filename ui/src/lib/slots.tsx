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
  /** In the storage notice's sentence, before "export a backup": the offer to sync. */
  syncOffer?: ComponentType;
}

export const SlotsContext = createContext<Slots>({});

export function DeckListActionsSlot() {
  const { deckListActions: Actions } = useContext(SlotsContext);
  return Actions ? <Actions /> : null;
}

export function DeckEditorActionsSlot({ deckId }: { deckId: string }) {
  const { deckEditorActions: Actions } = useContext(SlotsContext);
  return Actions ? <Actions deckId={deckId} /> : null;
}

export function SyncOfferSlot() {
  const { syncOffer: Offer } = useContext(SlotsContext);
  return Offer ? <Offer /> : null;
}

export function DeckShareStatusSlot({ deckId }: { deckId: string }) {
  const { deckShareStatus: Status } = useContext(SlotsContext);
  return Status ? <Status deckId={deckId} /> : null;
}

// The progress page's line on storage: how much this site keeps in the browser (decks, review
// logs, the app's offline copy), as navigator.storage.estimate() tells it. One line from the first
// frame, so the answer arriving moves nothing. The cards' pictures and sounds (the media store)
// are named with their own size.
import { useEffect, useState } from 'react';
import { browserStorageManager, storageUsed, storageUsedText, type StorageUse } from './keepStorage';
import { mediaStore } from './media/store';

export function StorageUsed() {
  const [used, setUsed] = useState<StorageUse | null | undefined>(undefined);
  const [media, setMedia] = useState(0);
  useEffect(() => {
    let live = true;
    void Promise.all([storageUsed(browserStorageManager()), mediaStore.usage().catch(() => 0)]).then(([answer, bytes]) => {
      if (!live) return;
      setUsed(answer);
      setMedia(bytes);
    });
    return () => {
      live = false;
    };
  }, []);
  return <p className="hint storage-used">{storageUsedText(used, media)}</p>;
}

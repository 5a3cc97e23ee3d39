// The progress page's line on storage: how much this site keeps in the browser (decks, review
// logs, the app's offline copy), as navigator.storage.estimate() tells it. One line from the first
// frame, so the answer arriving moves nothing.
import { useEffect, useState } from 'react';
import { browserStorageManager, storageUsed, storageUsedText, type StorageUse } from './keepStorage';

export function StorageUsed() {
  const [used, setUsed] = useState<StorageUse | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    void storageUsed(browserStorageManager()).then((answer) => {
      if (live) setUsed(answer);
    });
    return () => {
      live = false;
    };
  }, []);
  return <p className="hint storage-used">{storageUsedText(used)}</p>;
}

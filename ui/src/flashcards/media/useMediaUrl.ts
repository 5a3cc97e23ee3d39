// A stored file as a blob: URL for an <img> or <audio>, read from the media store by hash and
// revoked when the component goes. `missing` when this device does not hold the file.
import { useEffect, useState } from 'react';
import { mediaStore } from './store';

export type MediaUrl = { status: 'loading' } | { status: 'missing' } | { status: 'ready'; url: string; type: string };

export function useMediaUrl(hash: string): MediaUrl {
  const [state, setState] = useState<{ hash: string; value: MediaUrl }>({ hash, value: { status: 'loading' } });
  useEffect(() => {
    let url: string | null = null;
    let live = true;
    mediaStore.get(hash).then(
      (file) => {
        if (!live) return;
        if (!file) {
          setState({ hash, value: { status: 'missing' } });
          return;
        }
        url = URL.createObjectURL(new Blob([file.bytes], { type: file.type }));
        setState({ hash, value: { status: 'ready', url, type: file.type } });
      },
      () => live && setState({ hash, value: { status: 'missing' } }),
    );
    return () => {
      live = false;
      if (url) URL.revokeObjectURL(url);
    };
  }, [hash]);
  return state.hash === hash ? state.value : { status: 'loading' };
}

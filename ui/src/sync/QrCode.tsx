// A QR code of a link, drawn in the browser (the link holds the key: it never leaves this page).
import { useEffect, useState } from 'react';

export function QrCode({ text, label }: { text: string; label: string }) {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    void import('qrcode').then(async (qr) => {
      const url = await qr.toDataURL(text, { margin: 1, width: 220, errorCorrectionLevel: 'M' });
      if (live) setSrc(url);
    });
    return () => {
      live = false;
    };
  }, [text]);
  return src ? <img className="sync-qr" src={src} alt={label} width={220} height={220} /> : <div className="sync-qr" aria-hidden="true" />;
}

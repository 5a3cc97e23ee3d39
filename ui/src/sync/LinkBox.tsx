// A secret link shown with its QR code and a copy button.
import './sync.css';
import { useState } from 'react';
import { Copy } from 'lucide-react';
import { QrCode } from './QrCode';

export function LinkBox({ url, label, qrLabel }: { url: string; label: string; qrLabel: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="sync-link">
      <QrCode text={url} label={qrLabel} />
      <label className="field">
        {label}
        <input className="input sync-link__url" readOnly value={url} onFocus={(event) => event.currentTarget.select()} />
      </label>
      <button
        type="button"
        className="button"
        onClick={() => {
          void navigator.clipboard.writeText(url).then(() => setCopied(true));
        }}
      >
        <Copy aria-hidden="true" size={16} />
        {copied ? 'Copied' : 'Copy link'}
      </button>
    </div>
  );
}

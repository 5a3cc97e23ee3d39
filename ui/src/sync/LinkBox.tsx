// A secret link shown with its QR code and a copy button; given `share`, also "Share…" through the
// device's share sheet (Web Share) where the browser has one, which is then the first button.
import './sync.css';
import { useState } from 'react';
import { Copy, Share } from 'lucide-react';
import { QrCode } from './QrCode';

/** What the share sheet is handed besides the link. */
export interface ShareText {
  title: string;
  text: string;
}

/** Whether the browser has a share sheet that takes a link (canShare is missing from some that have one). */
function canShare(url: string): boolean {
  if (typeof navigator === 'undefined' || !('share' in navigator)) return false;
  return 'canShare' in navigator ? navigator.canShare({ url }) : true;
}

export function LinkBox({ url, label, qrLabel, share }: { url: string; label: string; qrLabel: string; share?: ShareText }) {
  const [copied, setCopied] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const sheet = share && canShare(url);
  return (
    <div className="sync-link">
      <QrCode text={url} label={qrLabel} />
      <label className="field">
        {label}
        <input className="input sync-link__url" readOnly value={url} onFocus={(event) => event.currentTarget.select()} />
      </label>
      <div className="sync-link__actions">
        {sheet && (
          <button
            type="button"
            className="button button--primary"
            onClick={() => {
              setProblem(null);
              navigator.share({ ...share, url }).catch((error: unknown) => {
                // Closing the sheet is no failure.
                if (!(error instanceof DOMException && error.name === 'AbortError')) setProblem('This device could not share the link: copy it instead.');
              });
            }}
          >
            <Share aria-hidden="true" size={16} />
            Share…
          </button>
        )}
        <button
          type="button"
          className={share && !sheet ? 'button button--primary' : 'button'}
          onClick={() => {
            void navigator.clipboard.writeText(url).then(() => setCopied(true));
          }}
        >
          <Copy aria-hidden="true" size={16} />
          {copied ? 'Copied' : 'Copy link'}
        </button>
      </div>
      {problem && (
        <p className="alert alert--warning" role="alert">
          {problem}
        </p>
      )}
    </div>
  );
}

// The 'Hosted:' banner after Build & Host (SPEC.md 2): the hosted link, a button copying its
// webcal: form (what calendar apps subscribe to), and Unpublish. Each Build & Host that succeeds
// brings it into view and gives it the focus (on a phone it is far below the button), so the
// result is seen and read out.
import { useEffect, useRef, useState } from 'react';
import { Check, Copy, Trash2 } from 'lucide-react';
import { toWebcal } from './calendar';
import { copyText } from './clipboard';
import { LIVE_TEXT, type LiveState } from './live';

interface Props {
  hostedUrl: string;
  canUnpublish: boolean;
  unpublishing: boolean;
  onUnpublish: () => void;
  /** Whether the hosted feed is built from what the editor shows. */
  live: LiveState;
  /** How many times Build & Host succeeded in this editor: each one focuses the banner. */
  published?: number;
}

export function HostedBanner({ hostedUrl, canUnpublish, unpublishing, onUnpublish, live, published = 0 }: Props) {
  const webcal = toWebcal(hostedUrl);
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const region = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (published === 0) return;
    const element = region.current;
    if (!element) return;
    element.focus({ preventScroll: true });
    element.scrollIntoView({ block: 'center' });
  }, [published]);

  useEffect(() => {
    if (copied === null) return;
    const timer = setTimeout(() => setCopied(null), 2500);
    return () => clearTimeout(timer);
  }, [copied]);

  const copy = async () => {
    const ok = await copyText(webcal);
    if (!ok) window.prompt('Copy this link:', webcal);
    setCopied(ok ? 'yes' : 'failed');
  };

  return (
    <div ref={region} className={`cal-hosted cal-hosted--${live}`} role="region" aria-label="Hosted feed" tabIndex={-1}>
      <p className="cal-hosted__link">
        <strong>Hosted:</strong>{' '}
        <a href={hostedUrl} target="_blank" rel="noreferrer">
          {hostedUrl}
        </a>
      </p>
      <div className="cal-hosted__actions">
        <button type="button" className="button cal-hosted__copy" onClick={() => void copy()}>
          {copied === 'yes' ? <Check aria-hidden="true" size={16} /> : <Copy aria-hidden="true" size={16} />}
          <span>Copy {webcal} link</span>
        </button>
        {canUnpublish && (
          <button type="button" className="button button--danger" onClick={onUnpublish} disabled={unpublishing}>
            <Trash2 aria-hidden="true" size={16} />
            {unpublishing ? 'Unpublishing...' : 'Unpublish'}
          </button>
        )}
      </div>
      <p className="cal-hosted__live" role="status" data-live={live}>
        {LIVE_TEXT[live]}
      </p>
      <p className="hint" role="status">
        {copied === 'yes' ? 'Copied. Paste it into your calendar app to subscribe.' : copied === 'failed' ? 'Copy the link from the box that opened.' : ''}
      </p>
    </div>
  );
}

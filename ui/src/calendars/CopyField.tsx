// A text to copy (an address, a snippet): a read-only field the reader can select, and a Copy
// button beside it that says whether it worked.
import { useEffect, useState } from 'react';
import { Check, Copy } from 'lucide-react';
import { copyText } from './clipboard';

interface Props {
  id: string;
  label: string;
  value: string;
  /** A snippet of several lines: a text area rather than a line. */
  multiline?: boolean;
}

export function CopyField({ id, label, value, multiline = false }: Props) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  useEffect(() => {
    if (copied === null) return;
    const timer = setTimeout(() => setCopied(null), 2500);
    return () => clearTimeout(timer);
  }, [copied]);
  const select = (e: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) => e.currentTarget.select();
  return (
    <div className="cal-copy">
      <label className="field" htmlFor={id}>
        {label}
      </label>
      <div className="cal-copy__row">
        {multiline ? (
          <textarea id={id} className="textarea cal-copy__text" readOnly rows={3} value={value} onFocus={select} />
        ) : (
          <input id={id} className="input cal-copy__text" readOnly value={value} onFocus={select} />
        )}
        <button type="button" className="button" onClick={() => void copyText(value).then((ok) => setCopied(ok ? 'yes' : 'failed'))}>
          {copied === 'yes' ? <Check aria-hidden="true" size={16} /> : <Copy aria-hidden="true" size={16} />}
          <span>Copy</span>
          <span className="visually-hidden"> {label.toLowerCase()}</span>
        </button>
      </div>
      <p className="hint cal-copy__status" role="status">
        {copied === 'yes' ? 'Copied.' : copied === 'failed' ? 'Select the text and copy it.' : ''}
      </p>
    </div>
  );
}

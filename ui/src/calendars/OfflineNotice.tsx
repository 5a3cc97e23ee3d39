// The calendar tool fetches feeds and previews through the server; offline it says so plainly
// instead of failing on every click.
import { WifiOff } from 'lucide-react';
import { useOnline } from '../lib/useOnline';

export function OfflineNotice() {
  const online = useOnline();
  if (online) return null;
  return (
    <p className="alert alert--warning offline-notice" role="status">
      <WifiOff aria-hidden="true" size={18} />
      <span>You are offline. The calendar tool needs the server to fetch feeds, preview and publish; your saved calendars are still listed here.</span>
    </p>
  );
}

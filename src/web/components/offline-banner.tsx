// Says, on every view, when the browser has no connection (docs/web.md "Offline"). The status
// region is always there (so that a screen reader announces the change); the text only offline.
import { useOnline } from '../lib/offline.ts';

export function OfflineBanner() {
  const online = useOnline();
  return (
    <div role="status" class="offline-status">
      {!online && (
        <p class="offline-banner">
          You are offline. Pages you opened before are shown as they were then; edits are kept on this device and saved when the connection
          returns.
        </p>
      )}
    </div>
  );
}

// The app's side of working offline (docs/web.md "Offline"): registering the service worker
// (src/web/sw.ts), telling it what the first view loaded before it was there, loading the new app
// after an upgrade, deleting the person's copies at sign-out, and whether the browser is online.
import { useEffect, useState } from 'preact/hooks';
import { loadFreshOnNextMove } from '../router.ts';

/** The person's cache names (sw.ts); the app shell's caches are the same for everyone and stay. */
const PERSON_PREFIX = 'kspace-person-';

export function registerWorker(): void {
  const sw = 'serviceWorker' in navigator ? navigator.serviceWorker : null;
  if (!sw) return;
  let controlled = Boolean(sw.controller);
  sw.addEventListener('controllerchange', () => {
    if (controlled) {
      // A new build's worker took over: the code running here is the old one, so the next move loads the new app.
      loadFreshOnNextMove();
      return;
    }
    controlled = true;
    // What this page loaded before the worker controlled it (the first view's page, its images, its
    // space, the session): the worker keeps the personal answers among them (it decides which; sw.ts).
    const urls = performance.getEntriesByType('resource').map((r) => r.name).filter((u) => u.startsWith(`${location.origin}/`));
    sw.controller?.postMessage({ type: 'remember', urls });
  });
  const register = (): void => { sw.register('/app/sw.js', { scope: '/app/' }).catch(() => undefined); };
  if (document.readyState === 'complete') register();
  else window.addEventListener('load', register, { once: true });
}

/** Deletes the signed-in person's offline copies (at sign-out, and when the session ends). */
export async function forgetOfflineCopies(): Promise<void> {
  if (typeof caches === 'undefined') return;
  try {
    for (const name of await caches.keys()) if (name.startsWith(PERSON_PREFIX)) await caches.delete(name);
  } catch { /* storage unavailable: nothing was kept */ }
}

/** Whether the browser says it has a connection, kept up to date. */
export function useOnline(): boolean {
  const [online, setOnline] = useState(() => navigator.onLine);
  useEffect(() => {
    const update = (): void => setOnline(navigator.onLine);
    window.addEventListener('online', update);
    window.addEventListener('offline', update);
    return () => { window.removeEventListener('online', update); window.removeEventListener('offline', update); };
  }, []);
  return online;
}

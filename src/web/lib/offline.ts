// The app's side of working offline (docs/web.md "Offline"): registering the service worker
// (src/web/sw.ts), telling it what the first view loaded before it was there, loading the new app
// after an upgrade, deleting the person's copies at sign-out (and ending on the server a session
// signed out of without a connection), and whether the browser is online.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, del, get, setCsrfToken } from '../api/client.ts';
import type { Session } from '../api/types.ts';
import { loadFreshOnNextMove } from '../router.ts';

/** The person's cache names (sw.ts); the app shell's caches are the same for everyone and stay. */
const PERSON_PREFIX = 'kspace-person-';

/** How long after the page's load event the worker is registered. */
const REGISTER_AFTER_MS = 1500;

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
    const urls = performance
      .getEntriesByType('resource')
      .map((r) => r.name)
      .filter((u) => u.startsWith(`${location.origin}/`));
    sw.controller?.postMessage({ type: 'remember', urls });
  });
  const register = (): void => {
    sw.register('/app/sw.js', { scope: '/app/' }).catch(() => undefined);
  };
  // Registered once the first view has painted and the page is quiet: installing the worker fetches
  // the whole app shell (the editor's chunk too), which otherwise competes with the first view's
  // own requests and pushes its largest paint back (docs/performance.md).
  const later = (): void => void setTimeout(register, REGISTER_AFTER_MS);
  if (document.readyState === 'complete') later();
  else window.addEventListener('load', later, { once: true });
}

/** Deletes the signed-in person's offline copies (at sign-out, and when the session ends). */
export async function forgetOfflineCopies(): Promise<void> {
  if (typeof caches === 'undefined') return;
  try {
    for (const name of await caches.keys()) if (name.startsWith(PERSON_PREFIX)) await caches.delete(name);
  } catch {
    /* storage unavailable: nothing was kept */
  }
}

const SIGN_OUT_KEY = 'kspace:sign-out-pending';

/** A sign-out made without a connection: its session still lives on the server (and its cookie here). */
export function signOutPending(): boolean {
  try {
    return localStorage.getItem(SIGN_OUT_KEY) === '1';
  } catch {
    return false;
  }
}

export function setSignOutPending(on: boolean): void {
  try {
    if (on) localStorage.setItem(SIGN_OUT_KEY, '1');
    else localStorage.removeItem(SIGN_OUT_KEY);
  } catch {
    /* storage off: nothing to remember */
  }
}

/** Ends the session a sign-out without a connection left behind; still pending while there is no connection. */
async function finishSignOut(): Promise<void> {
  try {
    const s = await get<Session>('/session', { quiet401: true });
    setCsrfToken(s.csrfToken);
    await del('/session');
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 401)) return;
  } finally {
    setCsrfToken(null);
  }
  setSignOutPending(false);
}

let finishing = false;
/**
 * Finishes a pending sign-out now, and again every 2 s while the browser says it is online but the
 * server was not reached (the `online` event can come before the network is back), ten tries at most.
 */
export function finishSignOutSoon(): void {
  if (finishing || !signOutPending()) return;
  finishing = true;
  let tries = 0;
  const attempt = async (): Promise<void> => {
    await finishSignOut();
    if (signOutPending() && navigator.onLine && ++tries < 10) setTimeout(() => void attempt(), 2000);
    else finishing = false;
  };
  void attempt();
}

/** Whether the browser says it has a connection, kept up to date. */
export function useOnline(): boolean {
  const [online, setOnline] = useState(() => navigator.onLine);
  useEffect(() => {
    const update = (): void => setOnline(navigator.onLine);
    window.addEventListener('online', update);
    window.addEventListener('offline', update);
    return () => {
      window.removeEventListener('online', update);
      window.removeEventListener('offline', update);
    };
  }, []);
  return online;
}

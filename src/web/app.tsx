// The app shell: reads the session on load (401 → sign-in), the header, the keyboard shortcuts
// and the view for the current address.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ApiError, del, get, setCsrfToken, UNAUTHORIZED_EVENT } from './api/client.ts';
import type { Principal, Session } from './api/types.ts';
import { ErrorBox, Loading } from './components/ui.tsx';
import { Header } from './components/header.tsx';
import { Sidebar, SIDEBAR_KEEPS_FOCUS } from './components/sidebar.tsx';
import { QuickSwitcher, useSwitcherShortcut } from './components/quick-switcher.tsx';
import { href, navigate, parseRoute, useLocation, type Route } from './router.ts';
import { SessionContext } from './session.ts';
import { useShortcuts } from './lib/shortcuts.ts';
import { startLive, stopLive } from './lib/live.ts';
import { SignIn } from './views/sign-in.tsx';
import { OfflineBanner } from './components/offline-banner.tsx';
import { finishSignOutSoon, forgetOfflineCopies, setSignOutPending, signOutPending } from './lib/offline.ts';
import { RouteView } from './views/route-view.tsx';

const NARROW = '(max-width: 900px)';

export function App() {
  const loc = useLocation();
  const route = parseRoute(loc.pathname, loc.search);
  const [principal, setPrincipal] = useState<Principal | null | undefined>(undefined);
  const [loadError, setLoadError] = useState<unknown>(null);

  const load = (): void => {
    setLoadError(null);
    // A sign-out made offline is finished first: the session it left must not sign anyone in.
    if (signOutPending()) {
      finishSignOutSoon();
      setPrincipal(null);
      return;
    }
    get<Session>('/session', { quiet401: true }).then(
      (s) => {
        setCsrfToken(s.csrfToken);
        setPrincipal(s.principal);
      },
      (err: unknown) => {
        if (err instanceof ApiError && err.status === 401) setPrincipal(null);
        else setLoadError(err);
      },
    );
  };
  useEffect(load, []);
  useEffect(() => {
    const onUnauthorized = (): void => {
      setCsrfToken(null);
      setPrincipal(null);
      void forgetOfflineCopies();
    };
    const onOnline = (): void => finishSignOutSoon();
    window.addEventListener(UNAUTHORIZED_EVENT, onUnauthorized);
    window.addEventListener('online', onOnline);
    return () => {
      window.removeEventListener(UNAUTHORIZED_EVENT, onUnauthorized);
      window.removeEventListener('online', onOnline);
    };
  }, []);

  const current = loc.pathname + loc.search;
  // A layout effect: the address says sign-in (with where to come back to) before the form paints.
  useLayoutEffect(() => {
    if (principal === null && route.name !== 'signIn') navigate(href.signIn(current), { replace: true });
    if (principal && route.name === 'signIn') navigate(route.next, { replace: true });
  }, [principal, route.name, current]);

  // One reader of the change feed for this tab while someone is signed in (lib/live.ts).
  useEffect(() => {
    if (!principal) return;
    startLive();
    return stopLive;
  }, [principal]);

  useShortcuts(route, Boolean(principal));
  const [switcher, setSwitcher] = useState(false);
  useSwitcherShortcut(Boolean(principal) && route.name !== 'signIn', () => setSwitcher((o) => !o));

  // After moving to another view, focus goes to the content (as after a page load), so keyboard
  // and screen-reader users start there; changes of the query alone (filters, dialogs) keep focus.
  const firstPath = useRef(loc.pathname);
  useEffect(() => {
    if (loc.pathname === firstPath.current) return;
    firstPath.current = '';
    if (document.activeElement?.closest(SIDEBAR_KEEPS_FOCUS) && !matchMedia(NARROW).matches) return; // browsing the tree
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [loc.pathname]);

  if (loadError)
    return (
      <>
        <OfflineBanner />
        <main id="main" class="narrow">
          <ErrorBox error={loadError} retry={load} />
        </main>
      </>
    );
  if (principal === undefined)
    return (
      <>
        <OfflineBanner />
        <main id="main" class="narrow">
          <Loading />
        </main>
      </>
    );
  if (principal === null || route.name === 'signIn') {
    return (
      <>
        <OfflineBanner />
        <SignIn
          next={route.name === 'signIn' ? route.next : current}
          onSignedIn={(s) => {
            setSignOutPending(false);
            setCsrfToken(s.csrfToken);
            setPrincipal(s.principal);
          }}
        />
      </>
    );
  }

  const signOut = (): void => {
    stopLive();
    // The person's offline copies go whether or not the server heard the sign-out; a sign-out the
    // server did not hear (no connection) is sent again when the app next can (docs/security.md).
    del('/session')
      .then(
        () => setSignOutPending(false),
        (err: unknown) => {
          if (err instanceof ApiError && err.status === 0) setSignOutPending(true);
        },
      )
      .then(forgetOfflineCopies)
      .finally(() => {
        setCsrfToken(null);
        setPrincipal(null);
        navigate('/app/sign-in', { replace: true });
      });
  };
  return (
    <SessionContext.Provider value={{ principal, signOut }}>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <Header route={route} />
      <OfflineBanner />
      {route.name === 'page' ? (
        <div class="app-body">
          <Sidebar key={route.space} space={route.space} current={route.path} />
          <main id="main" tabIndex={-1}>
            <RouteView route={route} />
          </main>
        </div>
      ) : (
        <main id="main" tabIndex={-1}>
          <RouteView route={route as Exclude<Route, { name: 'signIn' }>} />
        </main>
      )}
      {switcher && (
        <QuickSwitcher
          space={'space' in route && route.space ? route.space : undefined}
          path={route.name === 'page' ? route.path : undefined}
          onClose={() => setSwitcher(false)}
        />
      )}
    </SessionContext.Provider>
  );
}

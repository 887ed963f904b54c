// The web app's service worker (docs/web.md "Offline", docs/security.md "Offline copies"), served
// at /app/sw.js with scope /app/. scripts/build-web.ts bundles it on its own (not part of the app)
// with the build's id and its shell files written in: a new build is a new worker, which installs
// the new shell, takes over at once and deletes the old build's cache.
//
// Two kinds of cache, both same-origin only:
// - `kspace-app-<build>`: the app shell (index.html and the hashed assets), the same for everyone.
// - `kspace-person-<principal id>`: the signed-in person's GET answers for what they opened
//   (/session, /pages/…, /files/…, /spaces/<slug> and its tree levels). One person's cache at a
//   time: a sign-in of someone else, a 401 and a DELETE /session delete it (the app deletes it
//   at sign-out too, in case that DELETE does not reach the server).
// Every such request goes to the network first; the cache answers only when the network fails or
// is slower than a few seconds (SHELL_TIMEOUT_MS, DATA_TIMEOUT_MS). Writes, event streams, range
// requests and every other address pass through untouched (no respondWith).

declare const __KSPACE_BUILD__: string;
declare const __KSPACE_SHELL__: string[];

interface ExtendableEvent extends Event {
  waitUntil(p: Promise<unknown>): void;
}
interface FetchEvent extends ExtendableEvent {
  request: Request;
  respondWith(r: Promise<Response>): void;
}
interface ExtendableMessageEvent extends ExtendableEvent {
  data: unknown;
}
interface WorkerScope {
  skipWaiting(): Promise<void>;
  clients: { claim(): Promise<void> };
  location: { origin: string };
  addEventListener(type: 'install' | 'activate', f: (e: ExtendableEvent) => void): void;
  addEventListener(type: 'fetch', f: (e: FetchEvent) => void): void;
  addEventListener(type: 'message', f: (e: ExtendableMessageEvent) => void): void;
}
const scope = self as unknown as WorkerScope;

const SHELL = `kspace-app-${__KSPACE_BUILD__}`;
const APP_PREFIX = 'kspace-app-';
const PERSON_PREFIX = 'kspace-person-';
const INDEX = '/app/';
/**
 * How long a request may take before the cached copy is shown instead (a network answer arriving
 * later still updates the copy). Short for the shell (the copy is this build's, the same page);
 * longer for the person's data, whose copy may be older than what the server holds.
 */
const SHELL_TIMEOUT_MS = 3000;
const DATA_TIMEOUT_MS = 6000;

scope.addEventListener('install', (e) => {
  e.waitUntil(
    caches
      .open(SHELL)
      .then((c) => c.addAll([INDEX, ...__KSPACE_SHELL__.map((f) => `/app/${f}`)]))
      .then(() => scope.skipWaiting()),
  );
});

scope.addEventListener('activate', (e) => {
  e.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name.startsWith(APP_PREFIX) && name !== SHELL) await caches.delete(name);
      await scope.clients.claim();
    })(),
  );
});

/** The app's own addresses, and the API answers that are a person's pages and files. */
function personal(pathname: string): boolean {
  return (
    pathname === '/session' ||
    pathname.startsWith('/pages/') ||
    pathname.startsWith('/files/') ||
    /^\/spaces\/[^/]+(\/pages)?$/.test(pathname)
  );
}

scope.addEventListener('fetch', (e) => {
  const req = e.request;
  const url = new URL(req.url);
  if (url.origin !== scope.location.origin) return;
  if (req.method === 'DELETE' && url.pathname === '/session') {
    e.waitUntil(serial(forgetPeople));
    return;
  }
  if (req.method !== 'GET' || req.headers.has('range') || (req.headers.get('accept') ?? '').includes('text/event-stream')) return;
  if (req.mode === 'navigate') {
    if (url.pathname.startsWith('/app/'))
      e.respondWith(networkFirst(e, req, SHELL_TIMEOUT_MS, () => caches.match(INDEX, { cacheName: SHELL }), null));
  } else if (url.pathname.startsWith('/app/assets/')) {
    e.respondWith(shellAsset(e, req));
  } else if (personal(url.pathname)) {
    e.respondWith(
      networkFirst(
        e,
        req,
        DATA_TIMEOUT_MS,
        () => cachedAnswer(url),
        (res) => serial(() => keep(url, req, res)),
      ),
    );
  }
});

// The app, once the worker controls it, names the answers it received before (its first view
// loaded before the worker was there): they are fetched again and kept like any other.
scope.addEventListener('message', (e) => {
  const data = e.data as { type?: string; urls?: unknown } | null;
  if (data?.type !== 'remember' || !Array.isArray(data.urls)) return;
  e.waitUntil(
    (async () => {
      for (const u of data.urls as unknown[]) {
        if (typeof u !== 'string') continue;
        const url = new URL(u, scope.location.origin);
        if (url.origin !== scope.location.origin || !personal(url.pathname)) continue;
        const req = new Request(url, { credentials: 'same-origin' });
        const res = await fetch(req).catch(() => null);
        if (res) await serial(() => keep(url, req, res));
      }
    })(),
  );
});

/** Hashed assets never change under a name: the cache first, the network for one it lacks. */
async function shellAsset(e: FetchEvent, req: Request): Promise<Response> {
  const hit = await caches.match(req, { cacheName: SHELL });
  if (hit) return hit;
  const res = await fetch(req);
  if (res.ok) {
    const copy = res.clone();
    e.waitUntil(caches.open(SHELL).then((c) => c.put(req, copy)));
  }
  return res;
}

async function networkFirst(
  e: FetchEvent,
  req: Request,
  timeoutMs: number,
  cached: () => Promise<Response | undefined>,
  store: ((res: Response) => Promise<void>) | null,
): Promise<Response> {
  const net = fetch(req);
  net.catch(() => undefined); // a late failure after the cache answered is nobody's concern
  let timer: ReturnType<typeof setTimeout> | undefined;
  const slow = new Promise<'slow'>((resolve) => {
    timer = setTimeout(() => resolve('slow'), timeoutMs);
  });
  let res: Response | 'slow';
  try {
    res = await Promise.race([net, slow]);
  } catch {
    return (await cached()) ?? Response.error();
  } finally {
    clearTimeout(timer);
  }
  if (res === 'slow') {
    const hit = await cached();
    if (hit) {
      if (store)
        e.waitUntil(
          net.then(
            (r) => store(r),
            () => undefined,
          ),
        );
      return hit;
    }
    res = await net;
  }
  if (store) e.waitUntil(store(res.clone()));
  return res;
}

async function personCache(): Promise<string | null> {
  return (await caches.keys()).find((n) => n.startsWith(PERSON_PREFIX)) ?? null;
}

async function forgetPeople(): Promise<void> {
  for (const name of await caches.keys()) if (name.startsWith(PERSON_PREFIX)) await caches.delete(name);
}

/** The cached answer; a page's plain GET (the editor's) may take the rendered one (the view's), which holds the same fields and more. */
async function cachedAnswer(url: URL): Promise<Response | undefined> {
  const name = await personCache();
  if (!name) return undefined;
  const hit = await caches.match(url.href, { cacheName: name });
  if (hit || !url.pathname.startsWith('/pages/') || url.search !== '') return hit;
  return caches.match(`${url.href}?render=html`, { cacheName: name });
}

let queue: Promise<unknown> = Promise.resolve();
/**
 * Runs the changes to the person's cache one after another, in the order their requests came: a
 * GET answer that arrived before a sign-out is stored before the sign-out deletes the cache, never
 * after it (which would bring the cache back).
 */
function serial(f: () => Promise<void>): Promise<void> {
  const run = queue.then(f, f);
  queue = run.catch(() => undefined);
  return run;
}

/** Keeps an answer in the signed-in person's cache; a 401 ends the person's copies, a 403 or 404 that address's. */
async function keep(url: URL, req: Request, res: Response): Promise<void> {
  if (res.status === 401) return forgetPeople();
  if (res.status === 403 || res.status === 404 || res.status === 410) {
    // Gone or no longer readable: its copy goes too.
    const name = await personCache();
    if (name) await (await caches.open(name)).delete(req);
    return;
  }
  if (res.status !== 200 || res.type !== 'basic') return;
  if (url.pathname === '/session') {
    await startPerson(res);
    return;
  }
  // The first answer after the worker arrived (or after its cache was cleared) learns who is signed in.
  let name = await personCache();
  if (!name) {
    const session = await fetch('/session', { credentials: 'same-origin' }).catch(() => null);
    name = session?.status === 200 ? await startPerson(session) : null;
  }
  if (name && (await caches.has(name))) await (await caches.open(name)).put(req, res);
}

/** A /session answer: its person's cache (everyone else's deleted) with the answer in it. */
async function startPerson(res: Response): Promise<string | null> {
  const body = (await res
    .clone()
    .json()
    .catch(() => null)) as { principal?: { id?: unknown } } | null;
  const id = body?.principal?.id;
  if (typeof id !== 'string') return null;
  const name = PERSON_PREFIX + encodeURIComponent(id);
  for (const other of await caches.keys()) if (other.startsWith(PERSON_PREFIX) && other !== name) await caches.delete(other);
  await (await caches.open(name)).put('/session', res);
  return name;
}

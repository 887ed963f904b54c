// Transport 'fetch' (docs/testing.md): the test's `fetch` to a server's URL is answered by the h3
// app's own `fetch` (src/app.ts createApp) over the same services, without a socket. The Node
// front (src/front/front.ts: X-Request-Id, X-Service-Txid, rate and connection limits, request
// log lines, SERVICE_MAX_REQUEST_MS) and the direct page read (src/http/page-read.ts) are not on
// this path; a suite about them runs over the port only. A raw socket still reaches the port.
import { createApp } from '../../src/app.ts';
import type { Services } from '../../src/services.ts';

export type Transport = 'port' | 'fetch';

type Answer = (request: Request) => Response | Promise<Response>;
const apps = new Map<string, Answer>();
const socketFetch = globalThis.fetch;

function urlOf(input: Parameters<typeof fetch>[0]): string {
  return typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
}

function inProcessFetch(input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> {
  let origin: string;
  try {
    origin = new URL(urlOf(input)).origin;
  } catch {
    return socketFetch(input, init); // not a URL: fetch's own error
  }
  const app = apps.get(origin);
  if (!app) return socketFetch(input, init);
  return Promise.resolve(app(new Request(input, init)));
}

/** Answers the test's `fetch` to `url` through a new h3 app over `svc`; returns what undoes it. */
export function routeFetchInProcess(url: string, svc: Services): () => void {
  const origin = new URL(url).origin;
  const app = createApp(svc);
  apps.set(origin, (request) => app.fetch(request));
  globalThis.fetch = inProcessFetch;
  return () => {
    apps.delete(origin);
    if (apps.size === 0) globalThis.fetch = socketFetch;
  };
}

/** The transport KSPACE_TEST_TRANSPORT names (`port` unless it says `fetch`). */
export function transportFromEnv(): Transport {
  const t = process.env.KSPACE_TEST_TRANSPORT ?? 'port';
  if (t !== 'port' && t !== 'fetch') throw new Error(`KSPACE_TEST_TRANSPORT is 'port' or 'fetch', not '${t}'`);
  return t;
}

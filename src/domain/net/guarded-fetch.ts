// Outbound HTTP behind the address guard: resolve once, check every address, then connect to the
// checked address only (a pinned `lookup`, so DNS rebinding between check and connect is moot).
// TLS SNI and Host stay the URL's hostname. Redirects are returned, never followed.
import type { LookupAddress } from 'node:dns';
import type { ReadableStream } from 'node:stream/web';
import type { Agent, HeadersInit, Headers } from 'undici';

// undici is loaded on first use: most servers never call out, and it costs ~20 MB at start.
let undici: Promise<typeof import('undici')> | undefined;
const loadUndici = () => (undici ??= import('undici'));
import { readCapped } from '../../read-capped.ts';
import { resolveAndCheck, type CheckedAddress } from './address-guard.ts';

const DEFAULT_MAX_BYTES = 1024 * 1024;

interface GuardedFetchInit {
  method?: string;
  headers?: HeadersInit;
  body?: string | Uint8Array;
  timeoutMs: number;
  /** Cap on the (decompressed) response body; default 1 MiB. */
  maxBytes?: number;
  allowPrivate: boolean;
  signal?: AbortSignal;
  /** Trusted CA certificates (PEM) for https, replacing the defaults; pass tls.rootCertificates too to extend them. */
  ca?: string[];
}

interface GuardedResponse {
  status: number;
  headers: Headers;
  body: Buffer;
}

/** The address guard refused the target; such a delivery must not be retried. */
export class BlockedAddressError extends Error {
  readonly reason: string;
  readonly address: string;
  constructor(hostname: string, reason: string, address: string) {
    const via = hostname === address || hostname === `[${address}]` ? '' : ` (${hostname})`;
    super(`blocked by the address guard: ${address}${via} is ${reason}`);
    this.name = 'BlockedAddressError';
    this.reason = reason;
    this.address = address;
  }
}

export class ResponseTooLargeError extends Error {
  readonly limit: number;
  constructor(limit: number) {
    super(`response body exceeds ${limit} bytes`);
    this.name = 'ResponseTooLargeError';
    this.limit = limit;
  }
}

/** fetch() that only reaches addresses the guard allows; `timeoutMs` covers lookup, connect and body. */
export async function guardedFetch(url: string, init: GuardedFetchInit): Promise<GuardedResponse> {
  const target = new URL(url);
  if (target.protocol !== 'https:' && target.protocol !== 'http:') {
    throw new TypeError(`unsupported protocol ${target.protocol}`);
  }
  const maxBytes = init.maxBytes ?? DEFAULT_MAX_BYTES;
  // Loaded before the deadline starts: it covers the network, not the first use's module load.
  const { Agent, fetch } = await loadUndici();
  const timeout = AbortSignal.timeout(init.timeoutMs);
  const signal = init.signal ? AbortSignal.any([timeout, init.signal]) : timeout;

  const checked = await abortable(resolveAndCheck(target.hostname, { allowPrivate: init.allowPrivate }), signal);
  if ('blocked' in checked) throw new BlockedAddressError(target.hostname, checked.blocked, checked.address);

  const agent = new Agent({
    connect: { lookup: pinnedLookup(checked), timeout: init.timeoutMs, ...(init.ca ? { ca: init.ca } : {}) },
    connections: 1,
    allowH2: false,
  });
  try {
    const res = await fetch(target, {
      method: init.method ?? 'GET',
      headers: init.headers,
      body: init.body,
      redirect: 'manual',
      signal,
      dispatcher: agent,
    });
    const body = await readAnswer(res.body, maxBytes, signal);
    return { status: res.status, headers: res.headers, body };
  } finally {
    await agent.destroy().catch(() => {});
  }
}

/**
 * Keep-alive agents, one per checked address: every call still resolves and checks the host, and
 * a pooled connection only ever goes to an address that the guard has just allowed again.
 */
export interface AgentPool {
  get(checked: CheckedAddress, timeoutMs: number): Promise<Agent>;
  close(): Promise<void>;
}

export function createAgentPool(maxAgents = 64): AgentPool {
  const agents = new Map<string, Agent>(); // insertion order = least recently used first
  return {
    async get(checked, timeoutMs) {
      const { Agent } = await loadUndici();
      const key = `${checked.family}|${checked.address}|${timeoutMs}`;
      let agent = agents.get(key);
      if (agent) {
        agents.delete(key);
      } else {
        agent = new Agent({ connect: { lookup: pinnedLookup(checked), timeout: timeoutMs }, allowH2: false });
        if (agents.size >= maxAgents) {
          const [oldKey, oldest] = agents.entries().next().value!;
          agents.delete(oldKey);
          void oldest.close().catch(() => {});
        }
      }
      agents.set(key, agent);
      return agent;
    },
    async close() {
      const all = [...agents.values()];
      agents.clear();
      await Promise.all(all.map((a) => a.destroy().catch(() => {})));
    },
  };
}

interface GuardedPostInit {
  headers: Record<string, string>;
  body: Buffer;
  timeoutMs: number;
  allowPrivate: boolean;
  agents: AgentPool;
  signal?: AbortSignal;
}

/**
 * A POST that only needs the status (webhook delivery): the same guard and pinning as
 * guardedFetch, on pooled keep-alive connections, without fetch's stream machinery (one write
 * per request). The response body is drained up to 64 KiB and dropped; redirects are returned.
 */
export async function guardedPost(url: string, init: GuardedPostInit): Promise<{ status: number }> {
  const target = new URL(url);
  if (target.protocol !== 'https:' && target.protocol !== 'http:') {
    throw new TypeError(`unsupported protocol ${target.protocol}`);
  }
  // Loaded before the deadline starts: it covers the network, not the first use's module load.
  const { request } = await loadUndici();
  // One controller and a plain timer per call, both released when it ends: thousands of calls a
  // second must not leave AbortSignal.timeout timers and AbortSignal.any links behind.
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException(`timed out after ${init.timeoutMs} ms`, 'TimeoutError'));
  }, init.timeoutMs);
  const onAbort = () => controller.abort(init.signal?.reason);
  init.signal?.addEventListener('abort', onAbort, { once: true });
  const signal = controller.signal;
  try {
    const checked = await abortable(resolveAndCheck(target.hostname, { allowPrivate: init.allowPrivate }), signal);
    if ('blocked' in checked) throw new BlockedAddressError(target.hostname, checked.blocked, checked.address);
    const dispatcher = await init.agents.get(checked, init.timeoutMs);
    const res = await request(target, {
      method: 'POST',
      headers: init.headers,
      body: init.body,
      signal,
      dispatcher,
    });
    await res.body.dump({ limit: 64 * 1024, signal });
    return { status: res.statusCode };
  } catch (e) {
    // undici reports an abort as its own error; say which deadline it was.
    if (timedOut) throw signal.reason;
    throw e;
  } finally {
    clearTimeout(timer);
    init.signal?.removeEventListener('abort', onAbort);
  }
}

type LookupCallback = (err: Error | null, address: string | LookupAddress[], family?: number) => void;

// net.connect's lookup hook: answer with the checked address, whatever name is asked for.
function pinnedLookup(checked: CheckedAddress) {
  return (_hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    if (options.all) callback(null, [{ address: checked.address, family: checked.family }]);
    else callback(null, checked.address, checked.family);
  };
}

async function readAnswer(stream: ReadableStream<Uint8Array> | null, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
  if (stream === null) return Buffer.alloc(0);
  const bytes = await readCapped(stream.getReader(), maxBytes, () => new ResponseTooLargeError(maxBytes));
  signal.throwIfAborted();
  return bytes;
}

// dns.lookup cannot be cancelled; stop waiting for it once the deadline passes.
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

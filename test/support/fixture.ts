// The one server fixture of an API, MCP or CLI test file: one in-process server for the whole file
// (startServer), reached over the port or through app.fetch as KSPACE_TEST_TRANSPORT says
// (docs/testing.md), its agents and its spaces and pages, made in the file's beforeAll and closed in
// its afterAll. What it returns can be destructured at the top of the file: each value stands in
// for the one beforeAll makes (every property read goes to it), so the tests read `srv.admin`,
// `bob.put(…)` as before.
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { subscribeOutbox, WEBHOOK_ENV, type OutboxSubscription } from './outbox.ts';
import { transportFromEnv } from './in-process-fetch.ts';
import { newAgent, startServer, type Client, type TestServer, type Transport } from './server.ts';

export type Agent = Client & { id: string };

/** A stand-in for an object made later (in beforeAll): property reads and writes go to it once `set`. */
export function late<T extends object>(what: string): { ref: T; set(v: T): void } {
  let target: T | undefined;
  const get = (): T => {
    if (!target) throw new Error(`${what} is made in beforeAll: use it inside a test or hook`);
    return target;
  };
  const ref = new Proxy({} as T, {
    get: (_, p) => {
      const v = Reflect.get(get(), p);
      return typeof v === 'function' ? v.bind(get()) : v;
    },
    set: (_, p, v) => Reflect.set(get(), p, v),
    has: (_, p) => Reflect.has(get(), p),
    ownKeys: () => Reflect.ownKeys(get()),
    getOwnPropertyDescriptor: (_, p) => {
      const d = Reflect.getOwnPropertyDescriptor(get(), p);
      return d ? { ...d, configurable: true } : undefined;
    },
  });
  return {
    ref,
    set: (v) => {
      target = v;
    },
  };
}

/** Something the file's beforeAll makes (`make`) and its afterAll ends (`end`), usable at the top of the file as `late` gives it. */
export function useMade<T extends object>(what: string, make: () => Promise<T>, end: (v: T) => unknown = () => undefined): T {
  const v = late<T>(what);
  let made: T | undefined;
  beforeAll(async () => v.set((made = await make())));
  afterAll(async () => {
    if (made) await end(made);
  });
  return v.ref;
}

export type ServerFixtureOptions<A extends string> = {
  /** `SERVICE_*` settings. */
  env?: Record<string, string>;
  /** Agents (each its own principal and key) by name; `{ name: true }` for an org admin. */
  agents?: readonly A[] | Record<A, boolean>;
  /** Spaces the admin creates (POST /spaces bodies); each must answer 201. */
  spaces?: Array<{ slug: string; name?: string; [k: string]: unknown }>;
  /** A webhook subscription made after the spaces, before the pages (support/outbox.ts says why): the server gets WEBHOOK_ENV. */
  outbox?: Parameters<typeof subscribeOutbox>[1];
  /** Pages the admin writes, by `space/path`; each must answer 201. */
  pages?: Array<[string, Record<string, unknown>]>;
  /** Anything else to set up once the agents, spaces and pages are there. */
  setup?: (srv: TestServer, agents: Record<A, Agent>) => Promise<void>;
  /** Fails each test after which the server logged an error. */
  noErrors?: boolean;
  /** How long the setup may take, in ms (default: the config's hookTimeout). */
  timeout?: number;
  /**
   * How the tests' `fetch` reaches the server: without it, KSPACE_TEST_TRANSPORT ('port' unless set).
   * A suite whose subject is the socket or the Node front (X-Request-Id, X-Service-Txid, limits,
   * request log lines, the direct page read) says 'port'.
   */
  transport?: Transport;
};

/** The server, its agents (also each by its own name: `const { srv, bob } = useServer({ agents: ['bob'] })`), the outbox. */
export type ServerFixture<A extends string> = { srv: TestServer; agents: Record<A, Agent>; outbox: OutboxSubscription } & Record<
  Exclude<A, 'srv' | 'agents' | 'outbox'>,
  Agent
>;

export function useServer<A extends string = never>(opts: ServerFixtureOptions<A> = {}): ServerFixture<A> {
  const srv = late<TestServer>('the server');
  const outbox = late<OutboxSubscription>('the outbox subscription');
  const admins: Record<string, boolean> = Array.isArray(opts.agents)
    ? Object.fromEntries((opts.agents as readonly string[]).map((n) => [n, false]))
    : { ...(opts.agents as Record<string, boolean> | undefined) };
  const agents = Object.fromEntries(Object.keys(admins).map((n) => [n, late<Agent>(`agent ${n}`)]));
  const refs = Object.fromEntries(Object.entries(agents).map(([n, a]) => [n, a.ref])) as Record<A, Agent>;

  let running: TestServer | undefined;
  let subscription: OutboxSubscription | undefined;
  beforeAll(async () => {
    const env = opts.outbox ? { ...WEBHOOK_ENV, ...opts.env } : opts.env;
    const s = (running = await startServer(env, { transport: opts.transport ?? transportFromEnv() }));
    srv.set(s);
    for (const [name, orgAdmin] of Object.entries(admins)) agents[name].set(await newAgent(s, name, orgAdmin));
    for (const space of opts.spaces ?? []) {
      const r = await s.admin.post('/spaces', { name: space.slug, ...space });
      expect(r.status, `create space ${space.slug}: ${r.text}`).toBe(201);
    }
    if (opts.outbox) outbox.set((subscription = await subscribeOutbox(s, opts.outbox)));
    for (const [at, page] of opts.pages ?? []) {
      const r = await s.admin.put(`/pages/${at}`, page);
      expect(r.status, `put page ${at}: ${r.text}`).toBe(201);
    }
    await opts.setup?.(s, refs);
  }, opts.timeout);
  afterAll(async () => {
    await subscription?.close();
    await running?.close();
  });
  if (opts.noErrors) afterEach(() => expect(srv.ref.errors).toEqual([]));
  return { ...refs, srv: srv.ref, agents: refs, outbox: outbox.ref };
}

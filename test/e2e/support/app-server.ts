// The real kspace for browser tests: from source in this process (startServer), over a fresh data
// dir with a known admin key.
import { startServer, type Client } from '../../support/server.ts';

export type AppServer = {
  url: string;
  /** An org-admin agent's API client. */
  admin: Client;
  createUser(name: string, password?: string, opts?: { orgAdmin?: boolean }): Promise<{ id: string; name: string; password: string }>;
  createSpace(slug: string, name?: string, body?: Record<string, unknown>): Promise<void>;
  putPage(space: string, path: string, page: { title: string; content?: string; [k: string]: unknown }): Promise<void>;
  close(): Promise<void>;
};

export const DEFAULT_PASSWORD = 'correct horse battery';

function helpers(url: string, admin: Client, close: () => Promise<void>): AppServer {
  const must = (r: { status: number; text: string }, what: string, ok: number[]) => {
    if (!ok.includes(r.status)) throw new Error(`${what}: ${r.status} ${r.text}`);
  };
  return {
    url,
    admin,
    async createUser(name, password = DEFAULT_PASSWORD, opts = {}) {
      const r = await admin.post('/admin/principals', { name, kind: 'user', password, orgAdmin: opts.orgAdmin ?? false });
      must(r, `create user ${name}`, [201]);
      return { id: r.body.id, name, password };
    },
    async createSpace(slug, name = slug, body = {}) {
      must(await admin.post('/spaces', { slug, name, ...body }), `create space ${slug}`, [201]);
    },
    async putPage(space, p, page) {
      must(await admin.put(`/pages/${space}/${p}`, page), `put page ${space}/${p}`, [200, 201]);
    },
    close,
  };
}

/** kspace from source, in this process, on a random port. */
export async function startAppServer(env: Record<string, string> = {}): Promise<AppServer> {
  const srv = await startServer(env);
  return helpers(srv.url, srv.admin, () => srv.close());
}

// Short names over startServer's 'source' mode (server.ts), for the tests that start kspace as a child process.
import { ADMIN_KEY, startServer, type ChildServer } from './server.ts';

export type { ChildServer } from './server.ts';

/** `node bin/kspace.ts serve` as a child process on a random port; resolves once it listens. */
export function startChildServer(dataDir: string, env: Record<string, string>): Promise<ChildServer> {
  return startServer(env, { mode: 'source', dataDir });
}

/** SIGKILLs the server; resolves once it and its checkpointer helper are gone. */
export function killHard(child: ChildServer): Promise<void> {
  return child.stop('SIGKILL');
}

/** The admin's headers (ADMIN_KEY, JSON) for a raw fetch to a child started by startAdminChild. */
export const ADMIN_HEADERS = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };

/** kspace from source on `dataDir`, as bin/kspace runs it, with ADMIN_KEY as its bootstrap admin key. */
export function startAdminChild(dataDir: string): Promise<ChildServer> {
  return startServer({ SERVICE_BOOTSTRAP_ADMIN_KEY: ADMIN_KEY }, { mode: 'source', dataDir });
}

// Short names over startServer's 'source' mode (server.ts), for the tests that start kspace as a child process.
import { startServer, type ChildServer } from './server.ts';

export type { ChildServer } from './server.ts';

/** `node bin/kspace.ts serve` as a child process on a random port; resolves once it listens. */
export function startChildServer(dataDir: string, env: Record<string, string>): Promise<ChildServer> {
  return startServer(env, { mode: 'source', dataDir });
}

/** SIGKILLs the server; resolves once it and its checkpointer helper are gone. */
export function killHard(child: ChildServer): Promise<void> {
  return child.stop('SIGKILL');
}

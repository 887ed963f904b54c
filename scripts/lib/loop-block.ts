// The longest event-loop block of a child server in main-thread CPU time (loop-block-preload.mjs):
// start the child with loopBlockEnv(), call longestBlock() before the work (to start again) and
// after it.
import path from 'node:path';
import type { ChildServer } from './child-server.ts';

export function loopBlockEnv(): Record<string, string> {
  const preload = path.join(import.meta.dirname, 'loop-block-preload.mjs');
  return { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${preload}`.trim() };
}

/** The longest block since the last call, in milliseconds of the server's main-thread CPU. */
export async function longestBlock(server: ChildServer): Promise<number> {
  const from = server.stderr().length;
  server.proc.kill('SIGUSR2');
  for (;;) {
    const m = /loop-block ([\d.]+)\n/.exec(server.stderr().slice(from));
    if (m) return Number(m[1]);
    await new Promise((r) => setTimeout(r, 10));
  }
}

import fs from 'node:fs';

export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Whether stdin was given something to read: a pipe, a socket (how Node and others spawn
 * children) or a redirected file. A terminal, /dev/null or a closed stdin is not read, so a
 * command run from a terminal or from cron never waits for input.
 */
export function stdinIsPiped(): boolean {
  try {
    const st = fs.fstatSync(0);
    return st.isFIFO() || st.isFile() || st.isSocket();
  } catch {
    return false;
  }
}

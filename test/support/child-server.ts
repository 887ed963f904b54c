import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { stopProcess } from '../../scripts/lib/child-server.ts';

export type ChildServer = { proc: ChildProcess; url: string; stderr: () => string };

/** `node bin/kspace.ts serve` as a child process on a random port; resolves once it listens. */
export function startChildServer(dataDir: string, env: Record<string, string>): Promise<ChildServer> {
  const bin = path.resolve(import.meta.dirname, '../../bin/kspace.ts');
  const proc = spawn(process.execPath, [bin, 'serve', '--data', dataDir, '--port', '0'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  return new Promise((resolve, reject) => {
    // 30 s: a start on a machine loaded far past its cores (load 20 on 2) took over 15.
    const timer = setTimeout(() => reject(new Error(`server did not start: ${err}`)), 30_000);
    proc.stderr!.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const m = /kspace listening on (http:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, url: m[1], stderr: () => err });
      }
    });
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${err}`));
    });
  });
}

/** SIGKILLs the server; resolves once it and its checkpointer helper are gone. */
export function killHard(child: ChildServer): Promise<void> {
  return stopProcess(child.proc, 'SIGKILL');
}

// What the request front costs (issue 20): server CPU per request of a bare node:http answer,
// the same behind createFront (id, limits, one JSON log line), and with metrics on; rounds
// alternate. `quiet` is the front with SERVICE_LOG_LEVEL=warn (no request lines). CPU time (utime+stime of the server process) rather than throughput, so that other
// loads on a shared machine move the figures less. `node scripts/bench/ops-overhead.ts [rounds] [requests]`.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { runLoad } from '../lib/load.ts';

const rounds = Number(process.argv[2] ?? 5);
const total = Number(process.argv[3] ?? 30_000);
const cpuMs = (pid: number) => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10; // USER_HZ 100
};
const results: Record<string, number[]> = { bare: [], quiet: [], front: [], metrics: [] };
for (let round = 0; round < rounds; round++) {
  for (const variant of Object.keys(results)) {
    const proc = spawn(process.execPath, [path.join(import.meta.dirname, 'front-server.ts'), variant], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    proc.stderr!.resume(); // the log lines go through a pipe, as under systemd or Docker
    const port = Number(await new Promise<string>((r) => proc.stdout!.once('data', (d) => r(String(d)))));
    const url = `http://127.0.0.1:${port}`;
    await runLoad(url, {
      connections: 16,
      total: 5000,
      next: () => ({ method: 'GET', path: '/pages/x/y', headers: { authorization: 'Bearer ks_bench' } }),
    });
    const c0 = cpuMs(proc.pid!);
    await runLoad(url, {
      connections: 16,
      total,
      next: () => ({ method: 'GET', path: '/pages/x/y', headers: { authorization: 'Bearer ks_bench' } }),
    });
    results[variant].push(((cpuMs(proc.pid!) - c0) * 1000) / total);
    proc.kill();
    await new Promise((r) => proc.once('exit', r));
  }
  console.log(
    `round ${round}: ${Object.entries(results)
      .map(([k, v]) => `${k} ${v[round].toFixed(1)} µs`)
      .join(', ')}`,
  );
}
const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const bare = median(results.bare);
for (const [k, v] of Object.entries(results))
  console.log(`${k}: median ${median(v).toFixed(1)} µs CPU a request (+${(median(v) - bare).toFixed(1)} µs over bare)`);

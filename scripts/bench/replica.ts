// Primary and read replicas (issue 23, docs/scale-out.md). Child servers on loopback, the test
// shipper (scripts/lib/shipper.ts, standing in for Litestream's follower) in this process:
//   lag        16 connections PUT 2 KB pages on the primary; meanwhile a probe writes one page
//              every 50 ms and times, from its write's answer, until the replica's /readyz
//              reports that write's X-Service-Txid. The shipper copies the whole file each round
//              (back to back), so this is the harness's lag, an upper bound for Litestream's.
//   forward    PUT through the replica (forwarded) against PUT to the primary, 16 connections,
//              shipper paused: what forwarding adds.
//   checkpoint PUT throughput and p99 with SERVICE_CHECKPOINT_MODE=litestream against auto while
//              a reader holds a read transaction the way Litestream does (let go and taken again
//              every second, with Litestream's own PASSIVE/RESTART checkpoints: litestreamHold),
//              alternating rounds.
//   litestream the real Litestream v0.3.13: RPO, RTO, index rebuild, follower lag at 50 writes/s
//              (replica-litestream.ts).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { authHeaders, startChild, type ChildServer } from '../lib/child-server.ts';
import { syntheticPages } from '../lib/corpus.ts';
import { percentile, runLoad } from '../lib/load.ts';
import { litestreamHold } from '../lib/shipper.ts';
import type { BenchOptions, BenchResult } from '../bench.ts';

const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const n = opts.quick ? 2000 : 5000;
  const { pages } = syntheticPages(n + 1000, n, 23);
  const bodies = pages.map((p) => JSON.stringify({ title: p.title, content: p.content, metadata: p.metadata }));
  const headers = authHeaders();
  const dirs: string[] = [];
  const tmp = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-bench-replica-'));
    dirs.push(d);
    return d;
  };
  const servers: ChildServer[] = [];
  const out: BenchResult[] = [];
  try {
    // --- lag and forwarding -------------------------------------------------------------
    const pDir = tmp();
    const rDir = tmp();
    const primary = await startChild(pDir, { SERVICE_CHECKPOINT_MODE: 'litestream', SERVICE_LOG_LEVEL: 'warn' });
    servers.push(primary);
    await fetch(`${primary.url}/spaces`, { method: 'POST', headers, body: JSON.stringify({ slug: 'bench', name: 'Bench' }) });
    // The shipper in a process of its own (its copies would stall this process's load generator).
    const shipper = spawn(
      process.execPath,
      [path.join(import.meta.dirname, '../lib/shipper-process.ts'), path.join(pDir, 'kspace.db'), path.join(rDir, 'kspace.db'), '0'],
      {
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    );
    let shipperOut = '';
    shipper.stdout!.on('data', (d) => (shipperOut += d));
    while (!shipperOut.includes('ready\n')) {
      if (shipper.exitCode !== null) throw new Error('the shipper ended');
      await sleep(20);
    }
    const stopShipper = async (): Promise<Array<{ ms: number; at: number }>> => {
      shipper.stdin!.end();
      await new Promise((r) => shipper.once('exit', r));
      return JSON.parse(shipperOut.split('\n').filter(Boolean).at(-1)!) as Array<{ ms: number; at: number }>;
    };
    const replica = await startChild(rDir, { SERVICE_ROLE: 'replica', SERVICE_PRIMARY_URL: primary.url, SERVICE_LOG_LEVEL: 'warn' });
    servers.push(replica);
    await runLoad(primary.url, {
      // warm-up
      connections: 16,
      total: 1000,
      next: (i) => ({ method: 'PUT', path: `/pages/bench/warm-up/${pages[n + i].path}`, headers, body: bodies[n + i] }),
    });
    const replicaTxid = async () => ((await (await fetch(`${replica.url}/readyz`)).json()) as { txid: number }).txid;
    const lags: number[] = [];
    let loading = true;
    // Four probes, each writing a page, waiting for the replica to hold it, 10 ms, again.
    const probe = Promise.all(
      [0, 1, 2, 3].map(async (k) => {
        for (let i = 0; loading; i++) {
          const r = await fetch(`${primary.url}/pages/bench/probe/k${k}-${i % 20}`, {
            method: 'PUT',
            headers,
            body: JSON.stringify({ title: 'Probe', content: `probe ${i}` }),
          });
          const acked = performance.now();
          const t = Number(r.headers.get('x-service-txid'));
          await r.arrayBuffer();
          const deadline = acked + 30_000;
          while ((await replicaTxid()) < t) {
            if (performance.now() > deadline) throw new Error(`the replica did not reach txid ${t} in 30 s`);
            await sleep(2);
          }
          lags.push(performance.now() - acked);
          await sleep(10);
        }
      }),
    );
    const loadFrom = Date.now();
    const load = await runLoad(primary.url, {
      connections: 16,
      total: n,
      next: (i) => ({ method: 'PUT', path: `/pages/bench/${pages[i].path}`, headers, body: bodies[i] }),
    });
    loading = false;
    await probe;
    const loadTo = Date.now();
    const shipped = (await stopShipper()).filter((r) => r.at >= loadFrom && r.at <= loadTo).map((r) => r.ms); // stopped: the forwarding figures below are without it
    lags.sort((a, b) => a - b);
    const dbMb = fs.statSync(path.join(pDir, 'kspace.db')).size / 1e6;
    out.push(
      {
        name: `replica lag p50 under 16-connection PUT load (${load.perSecond.toFixed(0)} writes/s, ${lags.length} probes)`,
        value: percentile(lags, 0.5),
        unit: 'ms',
      },
      { name: 'replica lag p99 (write answered → replica /readyz txid reaches it)', value: percentile(lags, 0.99), unit: 'ms' },
      {
        name: `shipper round under the load (whole-file copy, ~${dbMb.toFixed(0)} MB at the end), median of ${shipped.length}`,
        value: median(shipped),
        unit: 'ms',
      },
    );

    const forwardRounds = opts.quick ? 2 : 3;
    const direct: { rate: number[]; p50: number[]; p99: number[] } = { rate: [], p50: [], p99: [] };
    const forwarded: typeof direct = { rate: [], p50: [], p99: [] };
    const m = opts.quick ? 1000 : 2000;
    for (let round = 0; round < forwardRounds; round++) {
      for (const [target, acc] of [
        [primary.url, direct],
        [replica.url, forwarded],
      ] as const) {
        const r = await runLoad(target, {
          connections: 16,
          total: m,
          next: (i) => ({ method: 'PUT', path: `/pages/bench/fw/${round}/${i % 500}`, headers, body: bodies[i] }),
        });
        if (r.errors) throw new Error(`PUT errors: ${JSON.stringify(r.statuses)}`);
        acc.rate.push(r.perSecond);
        acc.p50.push(r.p50);
        acc.p99.push(r.p99);
      }
    }
    out.push(
      { name: `PUT to the primary, 16 connections (median of ${forwardRounds})`, value: median(direct.rate), unit: 'writes/s' },
      { name: 'PUT through the replica (forwarded)', value: median(forwarded.rate), unit: 'writes/s' },
      { name: 'PUT p50 direct / forwarded', value: median(direct.p50), unit: `ms / ${median(forwarded.p50).toFixed(2)} ms` },
      { name: 'PUT p99 direct / forwarded', value: median(direct.p99), unit: `ms / ${median(forwarded.p99).toFixed(2)} ms` },
    );
    for (const s of servers.splice(0)) await s.stop();

    // --- checkpoint modes under a long-held read transaction ----------------------------
    const rounds = opts.quick ? 2 : 5;
    const rate: Record<string, number[]> = { auto: [], litestream: [] };
    const p99: Record<string, number[]> = { auto: [], litestream: [] };
    const wal: Record<string, number[]> = { auto: [], litestream: [] };
    for (let round = 0; round < rounds; round++) {
      for (const mode of ['auto', 'litestream']) {
        const dir = tmp();
        const server = await startChild(dir, { SERVICE_CHECKPOINT_MODE: mode, SERVICE_LOG_LEVEL: 'warn' });
        servers.push(server);
        await fetch(`${server.url}/spaces`, { method: 'POST', headers, body: JSON.stringify({ slug: 'bench', name: 'Bench' }) });
        await runLoad(server.url, {
          connections: 16,
          total: 1000,
          next: (i) => ({ method: 'PUT', path: `/pages/bench/warm-up/${pages[n + i].path}`, headers, body: bodies[n + i] }),
        });
        // Litestream's way: a read transaction held all the time, let go every second (its
        // monitor interval) for a moment and for its own checkpoints (litestreamHold).
        const lease = litestreamHold(path.join(dir, 'kspace.db'));
        const again = setInterval(() => {
          lease.letGo();
          lease.checkpoint();
          lease.hold();
        }, 1000);
        const r = await runLoad(server.url, {
          connections: 16,
          total: n,
          next: (i) => ({ method: 'PUT', path: `/pages/bench/${pages[i].path}`, headers, body: bodies[i] }),
        });
        clearInterval(again);
        lease.close();
        if (r.errors) throw new Error(`PUT errors (${mode}): ${JSON.stringify(r.statuses)}`);
        rate[mode].push(r.perSecond);
        p99[mode].push(r.p99);
        wal[mode].push(fs.statSync(path.join(dir, 'kspace.db-wal')).size / 1e6);
        await server.stop();
        servers.splice(servers.indexOf(server), 1);
        console.error(`  ${mode}: ${r.perSecond.toFixed(0)} writes/s, p99 ${r.p99.toFixed(1)} ms, WAL ${wal[mode].at(-1)!.toFixed(0)} MB`);
      }
    }
    out.push(
      {
        name: `rounds, auto: ${rate.auto.map((x) => x.toFixed(0)).join(', ')}; litestream: ${rate.litestream.map((x) => x.toFixed(0)).join(', ')} writes/s`,
        value: rounds,
        unit: 'rounds',
      },
      {
        name: `PUT with a reader holding a read transaction, checkpoint mode auto (median of ${rounds})`,
        value: median(rate.auto),
        unit: 'writes/s',
      },
      { name: 'the same, SERVICE_CHECKPOINT_MODE=litestream', value: median(rate.litestream), unit: 'writes/s' },
      { name: 'PUT p99, auto', value: median(p99.auto), unit: 'ms' },
      { name: 'PUT p99, litestream', value: median(p99.litestream), unit: 'ms' },
      { name: 'WAL file after the run, auto / litestream', value: median(wal.auto), unit: `MB / ${median(wal.litestream).toFixed(0)} MB` },
    );
    // The real Litestream: RPO, RTO, index rebuild, follower lag (replica-litestream.ts).
    out.push(...(await (await import('./replica-litestream.ts')).run(opts)));
    out.push({ name: 'load average (1 min) at the end', value: os.loadavg()[0], unit: '' });
    return out;
  } finally {
    for (const s of servers) await s.stop().catch(() => {});
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  }
}

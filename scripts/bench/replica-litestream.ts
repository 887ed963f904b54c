// The real Litestream (v0.3.13, scripts/lib/litestream.ts) beside kspace, a file replica in a temp
// dir, sync-interval 1 s (docs/scale-out.md). Part of `npm run bench -- --only replica`:
//   drill     a primary of n pages; one writer at 50 writes/s; kspace and Litestream SIGKILLed
//             together; `kspace restore --from-litestream` into a new directory and a start.
//             RPO: the oldest acknowledged write the restore lacks, before the kill (0 when none).
//             RTO: the restore, then the start until the server answers; the index rebuild: from
//             the start until a first search answers (searches wait for the rebuild).
//   follow    `kspace replica-follow --every 1` and a replica server on its copy; a writer at 50
//             writes/s on the primary; per write, from its answer until the replica's /readyz txid
//             reaches it.
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, authHeaders, startChild, type ChildServer } from '../lib/child-server.ts';
import { syntheticPages } from '../lib/corpus.ts';
import { LITESTREAM_BIN, startLitestream, waitShipped, type Litestream } from '../lib/litestream.ts';
import { percentile, runLoad } from '../lib/load.ts';
import type { BenchOptions, BenchResult } from '../bench.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const KSPACE = path.join(ROOT, 'bin/kspace');

function kspace(args: string[]): Promise<{ code: number | null; err: string }> {
  return new Promise((resolve) => {
    const p = spawn(KSPACE, args, { env: { ...process.env, SERVICE_DATA_DIR: '' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d) => (err += d));
    p.on('close', (code) => resolve({ code, err }));
  });
}

/** PUTs one page every 20 ms (50 a second) until stop(); each answer's time and txid. */
function writer50(url: string, prefix: string) {
  const headers = authHeaders();
  const acked: Array<{ path: string; at: number; txid: number }> = [];
  let stop = false;
  const done = (async () => {
    const start = performance.now();
    for (let i = 0; !stop; i++) {
      const wait = start + i * 20 - performance.now();
      if (wait > 0) await sleep(wait);
      const p = `${prefix}-${i}`;
      const r = await fetch(`${url}/pages/bench/${p}`, {
        method: 'PUT',
        headers,
        body: JSON.stringify({ title: 'W', content: `write ${i}` }),
      }).catch(() => null);
      if (r?.status === 201) acked.push({ path: p, at: Date.now(), txid: Number(r.headers.get('x-service-txid')) });
      await r?.arrayBuffer().catch(() => {});
    }
  })();
  return {
    acked,
    stop: async () => {
      stop = true;
      await done;
    },
  };
}

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const n = opts.quick ? 1000 : 3000;
  const { pages } = syntheticPages(n, n, 40);
  const bodies = pages.map((p) => JSON.stringify({ title: p.title, content: p.content, metadata: p.metadata }));
  const headers = authHeaders();
  const dirs: string[] = [];
  const tmp = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-bench-litestream-'));
    dirs.push(d);
    return d;
  };
  const procs: Array<ChildServer | Litestream> = [];
  const out: BenchResult[] = [];
  const primaryWithLitestream = async () => {
    const dir = tmp();
    const rep = path.join(tmp(), 'replica');
    const primary = await startChild(dir, { SERVICE_CHECKPOINT_MODE: 'litestream', SERVICE_LOG_LEVEL: 'warn' });
    procs.push(primary);
    await fetch(`${primary.url}/spaces`, { method: 'POST', headers, body: JSON.stringify({ slug: 'bench', name: 'Bench' }) });
    await fetch(`${primary.url}/pages/bench/marker`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ title: 'Marker', content: 'the quokka smiles' }),
    });
    const load = await runLoad(primary.url, {
      connections: 8,
      total: n,
      next: (i) => ({ method: 'PUT', path: `/pages/bench/${pages[i].path}`, headers, body: bodies[i] }),
    });
    if (load.errors) throw new Error(`PUT errors: ${JSON.stringify(load.statuses)}`);
    const ls = await startLitestream(path.join(dir, 'kspace.db'), rep, 1);
    procs.push(ls);
    await waitShipped(rep, Date.now(), 60_000);
    return { dir, rep, primary, ls };
  };
  try {
    // --- the drill -------------------------------------------------------------------------
    const rounds = opts.quick ? 2 : 3;
    const rpo: number[] = [];
    const lost: number[] = [];
    const restoreMs: number[] = [];
    const startMs: number[] = [];
    const indexMs: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const { primary, ls, rep } = await primaryWithLitestream();
      const w = writer50(primary.url, `drill-${round}`);
      await sleep(5000);
      const killedAt = Date.now();
      await Promise.all([primary.stop('SIGKILL'), ls.stop('SIGKILL')]);
      await w.stop();
      const target = tmp();
      const t0 = performance.now();
      const r = await kspace(['restore', '--from-litestream', `file://${rep}`, '--data', target, '--init', '--litestream', LITESTREAM_BIN]);
      if (r.code !== 0) throw new Error(`restore failed: ${r.err}`);
      restoreMs.push(performance.now() - t0);
      const db = new Database(path.join(target, 'kspace.db'), { readonly: true });
      const have = new Set(
        (db.prepare("SELECT path FROM pages WHERE path LIKE 'drill-%'").all() as Array<{ path: string }>).map((x) => x.path),
      );
      db.close();
      const missing = w.acked.filter((a) => !have.has(a.path));
      lost.push(missing.length);
      rpo.push(missing.length ? killedAt - Math.min(...missing.map((a) => a.at)) : 0);
      const t1 = performance.now();
      const back = await startChild(target, { SERVICE_LOG_LEVEL: 'warn' });
      procs.push(back);
      startMs.push(performance.now() - t1);
      const s = await fetch(`${back.url}/search?q=quokka`, { headers });
      const hits = ((await s.json()) as { hits: Array<{ path: string }> }).hits;
      if (!hits.some((h) => h.path === 'marker')) throw new Error('the rebuilt index lacks the marker page');
      indexMs.push(performance.now() - t1);
      await back.stop();
      console.error(
        `  drill ${round}: ${w.acked.length} acknowledged, ${missing.length} lost (oldest ${rpo.at(-1)} ms before the kill), restore ${restoreMs.at(-1)!.toFixed(0)} ms, start ${startMs.at(-1)!.toFixed(0)} ms, first search ${indexMs.at(-1)!.toFixed(0)} ms`,
      );
      for (const p of procs.splice(0)) await p.stop('SIGKILL').catch(() => {});
    }
    const dbMb = pages.reduce((s, p) => s + p.content.length, 0) / 1e6;
    out.push(
      {
        name: `RPO, real Litestream v0.3.13, sync-interval 1 s, 50 writes/s, SIGKILL of both: oldest lost write before the kill, worst of ${rounds} (lost writes: ${lost.join(', ')})`,
        value: Math.max(...rpo),
        unit: 'ms',
      },
      {
        name: `RTO: kspace restore --from-litestream (${n} pages, ~${dbMb.toFixed(1)} MB of text), median of ${rounds}`,
        value: median(restoreMs),
        unit: 'ms',
      },
      { name: 'RTO: then kspace serve until it answers', value: median(startMs), unit: 'ms' },
      { name: `full-text index rebuilt (${n} pages): start → first search answered`, value: median(indexMs), unit: 'ms' },
    );

    // --- the follower ------------------------------------------------------------------------
    const { primary, rep } = await primaryWithLitestream();
    const rDir = tmp();
    const follower = spawn(
      KSPACE,
      ['replica-follow', '--from', `file://${rep}`, '--data', rDir, '--every', '1', '--litestream', LITESTREAM_BIN],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let followLog = '';
    follower.stderr.on('data', (d) => (followLog += d));
    try {
      for (const end = Date.now() + 60_000; !followLog.includes('replica-follow: txid'); await sleep(50)) {
        if (Date.now() > end || follower.exitCode !== null) throw new Error(`the follower did not copy: ${followLog}`);
      }
      const replica = await startChild(rDir, { SERVICE_ROLE: 'replica', SERVICE_PRIMARY_URL: primary.url, SERVICE_LOG_LEVEL: 'warn' });
      procs.push(replica);
      const seen: Array<{ txid: number; at: number }> = [];
      let polling = true;
      const poller = (async () => {
        while (polling) {
          const r = (await (await fetch(`${replica.url}/readyz`)).json()) as { txid: number };
          if (!seen.length || r.txid > seen.at(-1)!.txid) seen.push({ txid: r.txid, at: Date.now() });
          await sleep(10);
        }
      })();
      const w = writer50(primary.url, 'follow');
      await sleep(opts.quick ? 8000 : 15_000);
      await w.stop();
      const last = w.acked.at(-1)!.txid;
      for (const end = Date.now() + 30_000; (seen.at(-1)?.txid ?? 0) < last && Date.now() < end; ) await sleep(50);
      polling = false;
      await poller;
      const lags = w.acked
        .map((a) => {
          const s = seen.find((x) => x.txid >= a.txid);
          return s ? s.at - a.at : Infinity;
        })
        .sort((a, b) => a - b);
      const rate = w.acked.length / ((w.acked.at(-1)!.at - w.acked[0].at) / 1000);
      out.push(
        {
          name: `follower lag (kspace replica-follow --every 1, real Litestream): write answered → replica /readyz txid, p50 (${w.acked.length} writes at ${rate.toFixed(0)}/s)`,
          value: percentile(lags, 0.5),
          unit: 'ms',
        },
        { name: 'follower lag p99', value: percentile(lags, 0.99), unit: 'ms' },
        { name: 'follower lag max', value: lags.at(-1)!, unit: 'ms' },
      );
    } finally {
      follower.kill('SIGTERM');
      await new Promise((r) => (follower.exitCode !== null ? r(null) : follower.once('exit', r)));
    }
    return out;
  } finally {
    for (const p of procs) await p.stop('SIGKILL').catch(() => {});
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  }
}

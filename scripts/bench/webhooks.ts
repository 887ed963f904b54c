// Webhooks benchmark. Run alone with `node scripts/bench/webhooks.ts [--quick]`, or as the
// `webhooks` section of scripts/bench.ts.
//
// 1. Page-write throughput over HTTP without and with 3 active subscriptions, interleaved rounds
//    in the same run (the with-rounds deliver while they write; each round waits until its
//    deliveries have all arrived, so none spill into the next round).
// 2. Dispatcher throughput: 10,000 events written while the server is down (through the domain
//    write path, in this process), then the server starts and delivers the backlog to 3
//    subscriptions; deliveries/s from start to the last delivery, and how many were lost.
// The server and the receiver run as child processes, as they would in a deployment.
import { fork, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { loadConfig } from '../../src/config/config.ts';
import { putPage } from '../../src/domain/pages.ts';
import { toCaller } from '../../src/domain/principals.ts';
import { createLogger, createServices } from '../../src/services.ts';
import { openDb } from '../../src/store/db/connection.ts';
import { findPrincipal } from '../../src/store/principals.ts';
import { sourceArgs } from '../lib/node-flags.ts';

type Result = { name: string; value: number; unit: string; target?: string; pass?: boolean };

const ROOT = path.resolve(import.meta.dirname, '../..');
const ADMIN_KEY = 'ks_bench_admin_key_0123456789abcdef';
const ENV = {
  SERVICE_BOOTSTRAP_ADMIN_KEY: ADMIN_KEY,
  SERVICE_SETTINGS_ENCRYPTION_KEY: 'bench-settings-key-0123456789abcdef-0123',
  SERVICE_WEBHOOKS_ALLOW_HTTP: '1',
  SERVICE_WEBHOOKS_ALLOW_PRIVATE_URLS: '1',
};
const SUBSCRIPTIONS = 3;
const WRITE_CONCURRENCY = 8;

export async function run(opts: { pages: number; quick: boolean }): Promise<Result[]> {
  const backlog = opts.quick ? 2_000 : 10_000;
  const perRound = opts.quick ? 500 : 3_000;
  const rounds = opts.quick ? 2 : 5;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-bench-webhooks-'));
  const receiver = await startReceiver();
  let server = await startServer(dataDir);
  const results: Result[] = [];
  try {
    const api = apiClient(server.url);
    await api('POST', '/spaces', { slug: 'bench', name: 'Bench' });
    const hooks: string[] = [];
    for (let i = 0; i < SUBSCRIPTIONS; i++) {
      const w = await api('POST', '/admin/webhooks', {
        url: `${receiver.url}/s${i}`,
        events: ['page.created', 'page.updated'],
        enabled: false,
      });
      hooks.push((w as { id: string }).id);
    }
    const setEnabled = async (enabled: boolean) => {
      for (const id of hooks) await api('PATCH', `/admin/webhooks/${id}`, { enabled });
    };

    await writePages(api, 'warm', 300);
    results.push({ name: 'server RSS after warm-up writes', value: round(rssMb(server.proc.pid!)), unit: 'MB' });
    const rate = { without: [] as number[], with: [] as number[] };
    const cpu = { without: [] as number[], with: [] as number[] }; // server CPU ms per write
    let catchUpMs = 0;
    let n = 0;
    for (let r = 0; r < rounds; r++) {
      let c0 = cpuMs(server.proc.pid!);
      rate.without.push(await writePages(api, `r${n++}`, perRound));
      cpu.without.push((cpuMs(server.proc.pid!) - c0) / perRound);
      await setEnabled(true);
      await receiver.reset();
      c0 = cpuMs(server.proc.pid!);
      rate.with.push(await writePages(api, `r${n++}`, perRound));
      cpu.with.push((cpuMs(server.proc.pid!) - c0) / perRound);
      const wroteAt = Date.now();
      if (process.env.BENCH_VERBOSE) console.error('delivered during the writes:', (await receiver.stats()).unique);
      const s = await receiver.waitUnique(perRound * SUBSCRIPTIONS, 60_000);
      catchUpMs = Math.max(catchUpMs, s.lastAt - wroteAt);
      await setEnabled(false);
    }
    if (process.env.BENCH_VERBOSE)
      console.error('rounds (writes/s):', JSON.stringify(rate), 'cpu ms/write', JSON.stringify(cpu), 'catch-up ms', catchUpMs);
    const without = sum(rate.without) / rounds;
    const withSubs = sum(rate.with) / rounds;
    results.push({ name: 'page writes/s, no subscriptions', value: round(without), unit: 'writes/s' });
    results.push({ name: `page writes/s, ${SUBSCRIPTIONS} active subscriptions`, value: round(withSubs), unit: 'writes/s' });
    // The machine is shared and its speed drifts: compare each round with the one just before it.
    const ratio = median(rate.with.map((w, i) => w / rate.without[i]));
    results.push({ name: 'server CPU per page write, no subscriptions', value: round(median(cpu.without) * 1000), unit: 'µs' });
    results.push({
      name: `server CPU per page write, ${SUBSCRIPTIONS} active subscriptions (during the writes)`,
      value: round(median(cpu.with) * 1000),
      unit: 'µs',
    });
    results.push({ name: 'deliveries still due when the writes end, sent within', value: round(catchUpMs / 1000), unit: 's' });
    results.push({
      name: 'write throughput with / without subscriptions (median of paired rounds)',
      value: round(ratio * 100),
      unit: '%',
      target: '>= 90',
      pass: ratio >= 0.9,
    });

    results.push({ name: 'server RSS after the write rounds', value: round(rssMb(server.proc.pid!)), unit: 'MB' });

    // Backlog: stop the server, write events through the domain write path, start again.
    await setEnabled(true);
    await server.stop();
    await writeOffline(dataDir, backlog);
    await receiver.reset();
    server = await startServer(dataDir);
    const t0 = Date.now(); // listening: the dispatcher has just started
    const stats = await receiver.waitUnique(backlog * SUBSCRIPTIONS, 180_000);
    const seconds = (stats.lastAt - t0) / 1000;
    const expected = backlog * SUBSCRIPTIONS;
    results.push({
      name: `backlog of ${backlog} events x ${SUBSCRIPTIONS} subscriptions`,
      value: round(expected / seconds),
      unit: 'deliveries/s',
      target: '>= 1000',
      pass: expected / seconds >= 1000,
    });
    results.push({
      name: 'deliveries lost',
      value: expected - stats.unique,
      unit: 'deliveries',
      target: '0',
      pass: stats.unique === expected,
    });
    results.push({ name: 'duplicate deliveries', value: stats.requests - stats.unique, unit: 'requests' });
    results.push({ name: 'server RSS after the backlog', value: round(rssMb(server.proc.pid!)), unit: 'MB' });
  } finally {
    await server.stop();
    receiver.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  return results;
}

type Api = (method: string, p: string, body?: unknown) => Promise<unknown>;

function apiClient(base: string): Api {
  const dispatcher = new Agent({ connections: WRITE_CONCURRENCY * 2 });
  return async (method, p, body) => {
    const res = await request(base + p, {
      method: method as 'GET',
      dispatcher,
      headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new Error(`${method} ${p}: ${res.statusCode} ${text}`);
    return text ? JSON.parse(text) : null;
  };
}

/** Writes `count` new pages over HTTP with a fixed number of writers; returns writes/s. */
async function writePages(api: Api, prefix: string, count: number): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: WRITE_CONCURRENCY }, async () => {
      while (next < count) {
        const i = next++;
        await api('PUT', `/pages/bench/${prefix}/p${i}`, {
          title: `Page ${i}`,
          content: pageContent(i),
          metadata: { n: i, stage: 'draft' },
        });
      }
    }),
  );
  return count / ((performance.now() - t0) / 1000);
}

const pageContent = (i: number) => `# Page ${i}\n\nSome text with a [link](./p${i + 1}) and a list:\n\n- one\n- two\n`;

async function writeOffline(dataDir: string, count: number): Promise<void> {
  const config = loadConfig({ data: dataDir }, ENV);
  const svc = createServices(openDb(dataDir), config, createLogger(true));
  try {
    const admin = toCaller(findPrincipal(svc.db, 'admin')!);
    for (let i = 0; i < count; i++) putPage(svc, admin, 'bench', `backlog/p${i}`, { title: `Backlog ${i}`, content: pageContent(i) });
  } finally {
    svc.db.close();
  }
}

type Server = { url: string; proc: ChildProcess; stop(): Promise<void> };

function startServer(dataDir: string): Promise<Server> {
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean); // e.g. --cpu-prof
  const proc = spawn(process.execPath, [...sourceArgs(nodeArgs), 'serve', '--data', dataDir, '--port', '0'], {
    env: { ...process.env, ...ENV },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  return new Promise((resolve, reject) => {
    proc.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      const m = /kspace listening on (http:\/\/\S+)/.exec(err);
      if (m)
        resolve({
          url: m[1],
          proc,
          stop: () =>
            new Promise<void>((done) => {
              if (proc.exitCode !== null) return done();
              proc.once('exit', () => done());
              proc.kill('SIGTERM');
            }),
        });
    });
    proc.once('exit', (code) => reject(new Error(`server exited with ${code}: ${err}`)));
  });
}

type Stats = { requests: number; unique: number; firstAt: number; lastAt: number };

async function startReceiver() {
  const proc = fork(path.join(import.meta.dirname, 'webhook-receiver.ts'), { stdio: 'inherit' });
  const ask = <T>(type: string) =>
    new Promise<T>((resolve) => {
      const on = (m: { type: string }) => {
        if (m.type !== type) return;
        proc.off('message', on);
        resolve(m as T);
      };
      proc.on('message', on);
      proc.send({ type });
    });
  const port = await new Promise<number>((resolve) => proc.once('message', (m: { port: number }) => resolve(m.port)));
  return {
    url: `http://127.0.0.1:${port}`,
    reset: () => ask('reset'),
    stats: () => ask<Stats>('stats'),
    async waitUnique(n: number, timeoutMs: number): Promise<Stats> {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const s = await ask<Stats>('stats');
        if (s.unique >= n || Date.now() > until) return s;
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    stop: () => proc.send({ type: 'exit' }),
  };
}

// utime + stime of a process, in ms (Linux clock ticks are 10 ms).
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const round = (x: number) => Math.round(x * 10) / 10;

if (import.meta.main) {
  const quick = process.argv.includes('--quick');
  const results = await run({ pages: 0, quick });
  for (const r of results) {
    const verdict = r.pass === undefined ? '' : r.pass ? '  PASS' : '  FAIL';
    console.log(`${r.name.padEnd(80)} ${String(r.value).padStart(10)} ${r.unit}${r.target ? `  (target ${r.target})` : ''}${verdict}`);
  }
  process.exit(results.every((r) => r.pass !== false) ? 0 : 1);
}

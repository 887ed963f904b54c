import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { authHeaders, startChild, type ChildServer } from '../../scripts/lib/child-server.ts';

// `kspace serve` checkpoints the WAL from a helper process so that no request waits for it.
const helpersOf = (pid: number) =>
  fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((d) => {
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      return ppid === pid && fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').includes('internal-checkpointer');
    } catch {
      return false;
    }
  }).map(Number);
const alive = (pid: number) => fs.existsSync(`/proc/${pid}`) && !fs.readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
const waitFor = async (cond: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  return cond();
};

let dir: string;
let server: ChildServer | undefined;
afterEach(async () => {
  await server?.stop('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('WAL checkpointer', () => {
  it('checkpoints from a helper process and goes away with the server, even after SIGKILL', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-ckpt-'));
    server = await startChild(dir);
    const pid = server.proc.pid!;
    expect(await waitFor(() => helpersOf(pid).length === 1)).toBe(true);
    const [helper] = helpersOf(pid);
    const before = fs.statSync(path.join(dir, 'kspace.db')).size;
    await fetch(`${server.url}/spaces`, { method: 'POST', headers: authHeaders(), body: JSON.stringify({ slug: 's', name: 'S' }) });
    for (let i = 0; i < 50; i++) {
      const r = await fetch(`${server.url}/pages/s/p${i}`, { method: 'PUT', headers: authHeaders(), body: JSON.stringify({ title: `P${i}`, content: 'x'.repeat(4000) }) });
      expect(r.status).toBe(201);
    }
    // New pages sit in the WAL until a checkpoint copies them into the database file. The
    // server's own threshold is far away (16,000 pages), so only the helper can grow the file.
    const dbFile = path.join(dir, 'kspace.db');
    expect(await waitFor(() => fs.statSync(dbFile).size > before + 200_000)).toBe(true);
    const db = new Database(dbFile, { readonly: true });
    expect(db.prepare("SELECT count(*) AS n FROM pages").get()).toEqual({ n: 50 });
    db.close();
    server.proc.kill('SIGKILL');
    expect(await waitFor(() => !alive(helper))).toBe(true);
  });
});

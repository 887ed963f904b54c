import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stopProcess } from '../../scripts/lib/child-server.ts';
import { LITESTREAM_BIN, startLitestream, waitShipped } from '../../scripts/lib/litestream.ts';
import { startChildServer } from '../support/child-server.ts';
import { KSPACE_BIN, runCli } from '../support/cli.ts';
import { tempDirs } from '../support/temp-dirs.ts';
import { waitFor } from '../support/wait.ts';
import { ADMIN_KEY, client } from '../support/server.ts';

// `kspace replica-follow` with the real Litestream v0.3.13 (docs/scale-out.md): a replica server
// reads a copy restored every 300 ms from a file replica, switching to each new copy between
// requests on the connection it has open, while readers never see a failure; /readyz tells the
// copy's age, also after a restart.

// 180 s: each test starts three to five processes; at a load average of 24 on 2 cores one took 71 s.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 60_000 });
const tmp = tempDirs('litestream-follow');
const procs: ChildProcess[] = [];
afterEach(async () => {
  for (const p of procs.splice(0)) await stopProcess(p, 'SIGKILL');
});

const env = { SERVICE_BOOTSTRAP_ADMIN_KEY: ADMIN_KEY, SERVICE_CHECKPOINT_MODE: 'litestream' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function txidIn(file: string): number {
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return (db.prepare('SELECT n FROM txid').pluck().get() as number | undefined) ?? -1;
    } finally {
      db.close();
    }
  } catch {
    return -1;
  }
}

/** A primary from source on `pDir` and Litestream shipping its database to a new file replica `rep`. */
async function startShippingPrimary(pDir: string) {
  const rep = path.join(tmp(), 'replica');
  const primary = await startChildServer(pDir, env);
  procs.push(primary.proc);
  const ls = await startLitestream(path.join(pDir, 'kspace.db'), rep, 1);
  procs.push(ls.proc);
  return { rep, primary };
}

describe('kspace replica-follow', () => {
  it("keeps a running replica on fresh copies without a restart or a failed read, and /readyz tells the copy's age", async () => {
    const pDir = tmp();
    const rDir = tmp();
    const { rep, primary } = await startShippingPrimary(pDir);
    const admin = client(primary.url, ADMIN_KEY);
    expect((await admin.post('/spaces', { slug: 'eng', name: 'Eng' })).status).toBe(201);
    expect((await admin.put('/pages/eng/doc', { title: 'Doc', content: 'the zebra grazes' })).status).toBe(201);
    await waitShipped(rep, Date.now());

    const follower = spawn(
      KSPACE_BIN,
      ['replica-follow', '--from', `file://${rep}`, '--data', rDir, '--every', '0.3', '--litestream', LITESTREAM_BIN],
      { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    procs.push(follower);
    let followLog = '';
    follower.stderr!.on('data', (d) => (followLog += d));
    expect(await waitFor(() => txidIn(path.join(rDir, 'kspace.db')) > 0, 60_000), followLog).toBe(true);
    const replica = await startChildServer(rDir, { ...env, SERVICE_ROLE: 'replica', SERVICE_PRIMARY_URL: primary.url });
    procs.push(replica.proc);
    const viaReplica = client(replica.url, ADMIN_KEY);

    // Readers on the replica all along; writes on the primary, ~50 a second.
    let reading = true;
    const failures: string[] = [];
    let reads = 0;
    const readers = [0, 1].map(async () => {
      while (reading) {
        const r = await viaReplica.get('/pages/eng/doc').catch((e: Error) => ({ status: 0, text: e.message }));
        reads++;
        if (r.status !== 200) failures.push(`${r.status} ${r.text}`);
        await sleep(5);
      }
    });
    let last = 0;
    for (let i = 0; i < 60; i++) {
      const w = await admin.put(`/pages/eng/w-${i}`, { title: 'W', content: `write ${i}` });
      expect(w.status).toBe(201);
      last = Number(w.headers.get('x-service-txid'));
      await sleep(20);
    }
    const wroteAt = Date.now();
    const caughtUp = await waitFor(() => txidIn(path.join(rDir, 'kspace.db')) >= last, 60_000);
    expect(caughtUp, followLog).toBe(true);
    // The replica's own connection sees it: no restart, the same file (checks.file ok).
    let ready = (await viaReplica.get('/readyz')).body;
    for (const end = Date.now() + 5000; ready.txid < last && Date.now() < end; await sleep(50))
      ready = (await viaReplica.get('/readyz')).body;
    expect(ready).toMatchObject({ status: 'ready', role: 'replica', checks: { file: 'ok' } });
    expect(ready.txid).toBeGreaterThanOrEqual(last);
    expect((await viaReplica.get('/pages/eng/w-59')).status).toBe(200);
    expect(ready.lagMs).toBeGreaterThan(0);
    expect(ready.lagMs).toBeLessThan(Date.now() - wroteAt + 60_000);
    reading = false;
    await Promise.all(readers);
    expect(reads).toBeGreaterThan(20);
    expect(failures).toEqual([]);

    // The follower stopped: the copy ages, and a restarted replica says so (it used to read 0).
    await stopProcess(follower, 'SIGTERM');
    expect(follower.exitCode).toBe(0);
    await stopProcess(replica.proc, 'SIGTERM');
    await sleep(1500);
    const again = await startChildServer(rDir, { ...env, SERVICE_ROLE: 'replica', SERVICE_PRIMARY_URL: primary.url });
    procs.push(again.proc);
    const after = (await client(again.url, ADMIN_KEY).get('/readyz')).body;
    expect(after.txid).toBe(ready.txid);
    expect(after.lagMs).toBeGreaterThanOrEqual(1500);
    expect(after.checks.replication.sinceChangeMs).toBeGreaterThanOrEqual(1500);
    expect(fs.readdirSync(rDir).filter((f) => f.startsWith('.kspace.db.follow'))).toEqual([]);
  });

  it("refuses to copy over a kspace.db with newer commits than the replica (a primary's directory), and leaves it alone", async () => {
    const pDir = tmp();
    const { rep, primary } = await startShippingPrimary(pDir);
    expect((await client(primary.url, ADMIN_KEY).post('/spaces', { slug: 'eng', name: 'Eng' })).status).toBe(201);
    await waitShipped(rep, Date.now());
    // Another primary's directory, further along.
    const other = tmp();
    const busy = await startChildServer(other, env);
    const c = client(busy.url, ADMIN_KEY);
    expect((await c.post('/spaces', { slug: 'eng', name: 'Eng' })).status).toBe(201);
    for (let i = 0; i < 10; i++) expect((await c.put(`/pages/eng/p-${i}`, { title: 'P', content: 'x' })).status).toBe(201);
    await stopProcess(busy.proc, 'SIGTERM');
    const before = fs.readFileSync(path.join(other, 'kspace.db'));
    expect(txidIn(path.join(other, 'kspace.db'))).toBeGreaterThan(txidIn(path.join(pDir, 'kspace.db')));
    const r = await runCli(['replica-follow', '--from', `file://${rep}`, '--data', other, '--litestream', LITESTREAM_BIN]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('it is not a copy of this replica');
    expect(fs.readFileSync(path.join(other, 'kspace.db')).equals(before)).toBe(true);
  });
});

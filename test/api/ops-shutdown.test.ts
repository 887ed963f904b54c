import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startChildServer } from '../support/child-server.ts';
import { ADMIN_KEY, client } from '../support/server.ts';

describe('SIGTERM', () => {
  it('stops accepting, finishes the request in flight, checkpoints the WAL and exits 0', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-term-'));
    const srv = await startChildServer(dataDir, { SERVICE_BOOTSTRAP_ADMIN_KEY: ADMIN_KEY });
    const admin = client(srv.url, ADMIN_KEY);
    await admin.post('/spaces', { slug: 's', name: 'S' });
    const { port } = new URL(srv.url);
    // A PUT whose body is still on its way when the signal comes.
    const body = JSON.stringify({ title: 'In flight', content: 'finished after SIGTERM' });
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    let answer = '';
    socket.on('data', (d) => (answer += d));
    socket.write(
      `PUT /pages/s/late HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    );
    await new Promise((r) => setTimeout(r, 200));
    const exited = new Promise<number | null>((r) => srv.proc.once('exit', r));
    srv.proc.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    await expect(fetch(`${srv.url}/healthz`)).rejects.toThrow(); // no longer accepting
    socket.write(body.slice(10));
    await new Promise((r) => socket.once('close', r));
    expect(answer).toMatch(/^HTTP\/1\.1 201/);
    expect(await exited).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'kspace.db-wal'))).toBe(false);
    expect(srv.stderr()).toMatch(/"msg":"kspace stopped"/);
    const again = await startChildServer(dataDir, { SERVICE_BOOTSTRAP_ADMIN_KEY: ADMIN_KEY });
    expect((await client(again.url, ADMIN_KEY).get('/pages/s/late')).body.title).toBe('In flight');
    again.proc.kill('SIGTERM');
    await new Promise((r) => again.proc.once('exit', r));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);
});

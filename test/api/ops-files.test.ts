import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../src/services.ts';
import { ADMIN_KEY, startServer } from '../support/server.ts';

const bin = path.resolve(import.meta.dirname, '../../bin/kspace');
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-ops-'));
const mode = (p: string) => (fs.statSync(p).mode & 0o777).toString(8);

function kspace(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(bin, args, { encoding: 'utf8', env: { ...process.env, SERVICE_DATA_DIR: '', ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('data directory permissions', () => {
  it('are 0700 for the directory and 0600 for every database file, whatever the umask', async () => {
    const parent = tmp();
    const dataDir = path.join(parent, 'data');
    const before = process.umask(0); // the loosest umask: files would be 0666 if left to it
    try {
      const srv = await startServer({}, { dataDir });
      try {
        await srv.admin.post('/spaces', { slug: 'w', name: 'W' });
        expect((await srv.admin.put('/pages/w/a', { title: 'A', content: 'secret plans' })).status).toBe(201);
        expect((await srv.admin.get('/search?q=plans')).status).toBe(200); // opens kspace-fts.db
        expect(mode(dataDir)).toBe('700');
        for (const f of [
          'kspace.db',
          'kspace.db-wal',
          'kspace.db-shm',
          'kspace-fts.db',
          'kspace-fts.db-wal',
          'kspace-fts.db-shm',
          'kspace.lock',
        ]) {
          expect([f, mode(path.join(dataDir, f))]).toEqual([f, '600']);
        }
      } finally {
        await srv.close();
      }
    } finally {
      process.umask(before);
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });

  it('are checked at start: a warning names each file others may read', async () => {
    const dataDir = tmp();
    const srv = await startServer({}, { dataDir, keepData: true });
    await srv.close();
    fs.chmodSync(dataDir, 0o755);
    fs.chmodSync(path.join(dataDir, 'kspace.db'), 0o644);
    const warnings: string[] = [];
    const log: Logger = { info() {}, warn: (m) => m.startsWith('other users') && warnings.push(m), error() {} };
    const again = await startServer({}, { dataDir, keepData: true, log });
    await again.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    expect(warnings).toEqual([
      expect.stringContaining(`${dataDir} is 0755, expected 0700`),
      expect.stringContaining(`${path.join(dataDir, 'kspace.db')} is 0644, expected 0600`),
    ]);
  });
});

describe('one server per data directory', () => {
  it('refuses a second server on the same directory, in this process and from another', async () => {
    const srv = await startServer();
    try {
      const started = Date.now();
      await expect(startServer({}, { dataDir: srv.dataDir, keepData: true })).rejects.toThrow(/in use by another kspace server/);
      expect(Date.now() - started).toBeLessThan(1000); // at once, not after a lock timeout
      const other = kspace(['serve', '--data', srv.dataDir, '--port', '0']);
      expect(other.code).toBe(1);
      expect(other.stderr).toContain(`kspace: ${srv.dataDir} is in use by another kspace server`);
      expect((await srv.admin.get('/me')).status).toBe(200); // the first one is unharmed
    } finally {
      await srv.close();
    }
  });

  it('is free again once the first server has stopped', async () => {
    const first = await startServer({}, { keepData: true });
    await first.close();
    const second = await startServer({}, { dataDir: first.dataDir });
    expect((await second.admin.get('/me')).status).toBe(200);
    await second.close();
  });
});

describe('offline commands and the data directory', () => {
  it('refuse a directory that holds no kspace database, and create nothing there', () => {
    const parent = tmp();
    const typo = path.join(parent, 'kspace-dta');
    const r = kspace(['admin', 'create-principal', '--data', typo, '--name', 'bot']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${typo} holds no kspace database`);
    expect(r.stderr).not.toContain('admin API key');
    expect(fs.existsSync(typo)).toBe(false);
    const k = kspace(['admin', 'create-key', '--data', parent, '--principal', 'admin']);
    expect(k.code).toBe(2);
    expect(fs.readdirSync(parent)).toEqual([]);
    fs.rmSync(parent, { recursive: true, force: true });
  });

  it('create one with --init, and honour SERVICE_DATA_DIR without --data', () => {
    const parent = tmp();
    const dataDir = path.join(parent, 'new');
    const created = kspace(['admin', 'create-principal', '--init', '--data', dataDir, '--name', 'bot']);
    expect(created.code).toBe(0);
    expect(created.stderr).toMatch(/^admin API key: ks_/);
    expect(mode(dataDir)).toBe('700');
    const key = kspace(['admin', 'create-key', '--principal', 'bot'], { SERVICE_DATA_DIR: dataDir });
    expect(key).toMatchObject({ code: 0, stdout: expect.stringMatching(/^ks_\S+\n$/) });
    fs.rmSync(parent, { recursive: true, force: true });
  });
});

import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SCHEMA_VERSION } from '../../src/store/migrations.ts';
import { makeOldDatabase } from '../support/old-db.ts';
import { startServer } from '../support/server.ts';

// Schema 9 adds the transaction number (txid, issue 23): a version-8 database keeps every page
// and revision, and its writes after the upgrade are answered with X-Service-Txid from 1 on.
describe('migration to schema 9 (txid)', () => {
  it('keeps a version-8 database whole and starts counting commits', async () => {
    const first = await startServer({}, { keepData: true });
    const dir = first.dataDir;
    try {
      expect((await first.admin.post('/spaces', { slug: 'eng', name: 'Eng' })).status).toBe(201);
      await first.admin.put('/pages/eng/a', { title: 'A', content: 'one' });
      await first.admin.put('/pages/eng/a', { title: 'A', content: 'two' });
    } finally {
      await first.close();
    }
    // A database of the version 8 schema (test/support/schema-v8.sql) holding the same data.
    const old = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-mig9-'));
    makeOldDatabase(path.join(dir, 'kspace.db'), old, './schema-v8.sql', 8);
    fs.rmSync(dir, { recursive: true, force: true });
    const srv = await startServer({}, { dataDir: old });
    try {
      expect(srv.svc.db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      const page = await srv.admin.get('/pages/eng/a');
      expect(page.body).toMatchObject({ content: 'two', version: 2 });
      expect((await srv.admin.get('/pages/eng/a/revisions')).body.revisions.length).toBe(2);
      const w = await srv.admin.put('/pages/eng/b', { title: 'B', content: 'new' });
      expect(w.status).toBe(201);
      expect(Number(w.headers.get('x-service-txid'))).toBeGreaterThanOrEqual(1); // background jobs may have committed first
    } finally {
      await srv.close();
      fs.rmSync(old, { recursive: true, force: true });
    }
  });
});

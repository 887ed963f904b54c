import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAgent, startServer, type Client, type TestServer } from '../support/server.ts';
import { putTemplate } from '../support/records.ts';

// A record type (template page) the caller may not read is absent for that caller: a write on
// one of its records neither validates against it (whose messages would tell its fields, types
// and options) nor applies its hidden defaults, exactly as for a record whose type is deleted
// (issue 18 finding 7).

let srv: TestServer;
let bob: Client & { id: string };
const SALARY = {
  metadataDefaults: { band: 'secret-band-7' },
  metadataSchema: {
    additionalKeys: 'reject',
    fields: [
      { key: 'level', type: 'number', min: 1, max: 5, required: true },
      { key: 'grade', type: 'select', options: ['exec', 'staff'], default: 'staff' },
      { key: 'band', type: 'string' },
    ],
  },
};

beforeAll(async () => {
  srv = await startServer();
  bob = await newAgent(srv, 'bob');
  await srv.admin.post('/spaces', { slug: 'crm', name: 'CRM' });
  await putTemplate(srv.admin, 'crm', 'salary', SALARY);
  await putTemplate(srv.admin, 'crm', 'gone', SALARY);
  expect((await srv.admin.put('/pages/crm/templates/salary/acl', { read: [] })).status).toBe(200);
  for (const [path, type] of [
    ['r/hidden', 'salary'],
    ['r/gone', 'gone'],
  ]) {
    expect((await srv.admin.put(`/pages/crm/${path}`, { title: 'R', template: type, metadata: { level: 2 } })).status).toBe(201);
  }
  expect((await srv.admin.del('/pages/crm/templates/gone')).status).toBe(204);
});
afterAll(() => srv.close());

const leaks = (text: string) => ['level', 'grade', 'exec', 'staff', 'secret-band-7', 'band'].filter((w) => text.includes(w));

describe('a record whose type the caller may not read', () => {
  it('is written like a record whose type is gone: no schema messages, no hidden defaults', async () => {
    for (const path of ['r/hidden', 'r/gone']) {
      const r = await bob.put(`/pages/crm/${path}`, { title: 'R', metadata: { other: 'x' } });
      expect(r.status, path).toBe(200);
      expect(r.body.metadata, path).toEqual({ other: 'x', template: path === 'r/hidden' ? 'salary' : 'gone' });
    }
  });

  it('takes a metadata patch without checking it against the type', async () => {
    const hidden = await bob.patch('/pages/crm/r/hidden/metadata', { set: { level: 'not a number', extra: 1 } });
    const gone = await bob.patch('/pages/crm/r/gone/metadata', { set: { level: 'not a number', extra: 1 } });
    expect(hidden.status).toBe(gone.status);
    expect(hidden.status).toBe(200);
    expect(leaks(JSON.stringify(hidden.body.metadata)).filter((w) => w !== 'level')).toEqual([]);
  });

  it('answers a write naming the type like one naming a missing type', async () => {
    const hidden = await bob.put('/pages/crm/new1', { title: 'N', template: 'salary', metadata: { level: 99 } });
    const missing = await bob.put('/pages/crm/new1', { title: 'N', template: 'nosuch', metadata: { level: 99 } });
    expect(hidden.status).toBe(400);
    expect(hidden.body.issues[0].message.replace('salary', 'nosuch')).toBe(missing.body.issues[0].message);
    expect(leaks(hidden.text.replace(/"level"/g, ''))).toEqual([]);
  });

  it('still holds its type for those who may read it', async () => {
    const r = await srv.admin.put('/pages/crm/r/hidden', { title: 'R', metadata: { level: 9 } });
    expect(r.status).toBe(400);
    expect(r.body.issues[0].key).toBe('metadata.level');
  });
});

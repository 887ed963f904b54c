import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAgent, startServer, type TestServer } from '../support/server.ts';

// SERVICE_MAX_SPACES_PER_PRINCIPAL (docs/security.md, "Limits per caller"): each space brings
// its own attachment quota, so a member creates only so many.

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer({ SERVICE_MAX_SPACES_PER_PRINCIPAL: '2' });
});
afterAll(() => srv.close());

describe('spaces a principal may create', () => {
  it('refuses a member past the cap with 403 quota_exceeded naming the setting; others and org admins go on', async () => {
    const mo = await newAgent(srv, 'mo');
    const statuses: number[] = [];
    let refused;
    for (const slug of ['mo-1', 'mo-2', 'mo-3']) {
      const r = await mo.post('/spaces', { slug, name: slug });
      statuses.push(r.status);
      if (r.status === 403) refused = r;
    }
    expect(statuses).toEqual([201, 201, 403]);
    expect(refused!.headers.get('content-type')).toBe('application/problem+json');
    expect(refused!.body).toMatchObject({
      status: 403,
      code: 'quota_exceeded',
      setting: 'SERVICE_MAX_SPACES_PER_PRINCIPAL',
      limit: 2,
      used: 2,
    });
    expect((await srv.admin.get('/spaces/mo-3')).status).toBe(404); // nothing written
    // The personal space does not count, nor do other principals' spaces.
    expect((await mo.put('/pages/~mo/note', { title: 'N', content: 'n' })).status).toBe(201);
    const jo = await newAgent(srv, 'jo');
    expect((await jo.post('/spaces', { slug: 'jo-1', name: 'jo' })).status).toBe(201);
    // A space in the org trash still counts; org admins have no cap.
    expect((await srv.admin.del('/spaces/mo-1')).status).toBe(204);
    expect((await mo.post('/spaces', { slug: 'mo-4', name: 'mo' })).status).toBe(403);
    for (const slug of ['a-1', 'a-2', 'a-3']) expect((await srv.admin.post('/spaces', { slug, name: slug })).status).toBe(201);
  });
});

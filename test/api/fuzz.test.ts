import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorld, fuzzOperations, type FuzzWorld } from '../support/fuzz.ts';
import { startServer, type TestServer } from '../support/server.ts';

// Every operation of /openapi.json with generated valid and invalid input, as admin, member,
// outsider and nobody (test/support/fuzz.ts). The long run: `npm run fuzz -- --runs 10000`.
const RUNS = Number(process.env.FUZZ_RUNS ?? 100);

let srv: TestServer;
let world: FuzzWorld;
beforeAll(async () => {
  srv = await startServer({ SERVICE_SETTINGS_ENCRYPTION_KEY: 'fuzz-encryption-key-0123456789abcdef', SERVICE_WEBHOOKS_TIMEOUT_MS: '200' });
  world = await buildWorld(srv);
});
afterAll(() => srv.close());

describe('fuzzing every documented operation', () => {
  it(`answers ${RUNS} generated requests per operation with no 5xx and only catalogued problem+json errors`, async () => {
    const started = Date.now();
    const { failures, requests, msByOperation } = await fuzzOperations(world, { runs: RUNS });
    expect(failures).toEqual([]);
    expect(srv.errors).toEqual([]);
    expect(requests).toBeGreaterThanOrEqual(RUNS * world.operations.length);
    expect((await srv.admin.get('/me')).status).toBe(200); // still alive
    expect(srv.svc.db.pragma('integrity_check', { simple: true })).toBe('ok');
    console.info(`fuzz: ${requests} requests over ${world.operations.length} operations in ${Date.now() - started} ms`);
    if (process.env.FUZZ_TIMES)
      console.info(
        Object.entries(msByOperation)
          .sort((a, b) => b[1] - a[1])
          .slice(0, 12),
      );
    // Generated from the declared schemas, the requests reach both success and refusal: /search
    // answers 200 to a generated q and 400 when the required q is left out or broken.
    expect(Object.keys(world.statuses['GET /search'] ?? {})).toEqual(expect.arrayContaining(['200', '400']));
    expect(Object.keys(world.statuses['GET /search/metadata'] ?? {})).toEqual(expect.arrayContaining(['200', '400']));
  }, 300_000);

  it('fails an answer whose status the operation does not declare', async () => {
    const session = world.operations.find((o) => o.method === 'GET' && o.path === '/session')!;
    const { 401: _, ...responses } = session.op.responses;
    const undeclared = { ...session, op: { ...session.op, responses } };
    const { failures } = await fuzzOperations({ ...world, operations: [undeclared] }, { runs: 20, seed: 1 });
    expect(failures.map((f) => f.why)).toEqual(['status 401 is not declared for GET /session']);
  });
});

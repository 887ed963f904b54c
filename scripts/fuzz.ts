// The long fuzz run: `npm run fuzz -- --runs 10000 [--seed N] [--only '/pages'] [--part 1/2]`. Every operation of
// /openapi.json gets `runs` generated requests (test/support/fuzz.ts) against a fresh server; the
// figures go to docs/security.md. `--part i/n` runs every n-th operation from the i-th (one
// process per core for a long run). Exit code 1 when anything failed.
import { parseArgs } from 'node:util';
import { buildWorld, fuzzOperations } from '../test/support/fuzz.ts';
import { startServer } from '../test/support/server.ts';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '1000' }, seed: { type: 'string' }, only: { type: 'string' }, part: { type: 'string' } },
});
const runs = Number(values.runs);
const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed);
const srv = await startServer({
  SERVICE_SETTINGS_ENCRYPTION_KEY: 'fuzz-encryption-key-0123456789abcdef',
  SERVICE_WEBHOOKS_TIMEOUT_MS: '200',
});
try {
  const world = await buildWorld(srv);
  const started = Date.now();
  const only = values.only;
  const [part, parts] = (values.part ?? '1/1').split('/').map(Number);
  const ids = new Map(world.operations.map((o, i) => [o, i]));
  const inPart = (o: (typeof world.operations)[number]) => ids.get(o)! % parts === part - 1;
  const { failures, requests, msByOperation } = await fuzzOperations(world, {
    runs,
    seed,
    only: (o) => inPart(o) && (!only || o.path.includes(only)),
    onOperation: (name, ms, failed) =>
      console.log(`${new Date().toISOString()} ${name}: ${runs} runs, ${ms} ms${failed ? ', FAILED' : ''}`),
  });
  const seconds = (Date.now() - started) / 1000;
  const integrity = srv.svc.db.pragma('integrity_check', { simple: true });
  const alive = (await srv.admin.get('/me')).status === 200;
  console.log(
    JSON.stringify(
      {
        runs,
        seed,
        operations: Object.keys(msByOperation).length,
        requests,
        seconds,
        failures: failures.length,
        serverErrors: srv.errors.length,
        integrity,
        alive,
      },
      null,
      1,
    ),
  );
  if (process.env.FUZZ_STATUSES) console.log(JSON.stringify(world.statuses));
  for (const f of failures) console.log(`FAIL ${f.why}: ${f.request} -> ${f.status} ${f.body}`);
  for (const e of srv.errors.slice(0, 20)) console.log(`server error: ${e.slice(0, 1000)}`);
  process.exitCode = failures.length || srv.errors.length || integrity !== 'ok' || !alive ? 1 : 0;
} finally {
  await srv.close();
}

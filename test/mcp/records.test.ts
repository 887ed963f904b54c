import { describe, expect, it } from 'vitest';
import { callTool, connectHttp, connectStdio, useMcpClient } from '../support/mcp.ts';
import { eventsFor, putTemplate, TASK_FIELDS } from '../support/records.ts';
import { useServer } from '../support/fixture.ts';

const { srv, agent } = useServer({
  agents: ['agent'],
  spaces: [{ slug: 'work', name: 'Work' }],
  outbox: {}, // so that writes record events, and a refused one could
  async setup(srv) {
    await putTemplate(srv.admin, 'work', 'task', {
      description: 'A unit of work',
      defaultPathPrefix: 'tasks/',
      metadataSchema: { additionalKeys: 'reject', fields: TASK_FIELDS },
    });
    await putTemplate(
      srv.admin,
      'work',
      'note',
      { description: 'A plain note', metadataDefaults: { kind: 'note' } },
      { content: '## Notes\n' },
    );
  },
});

describe.each([
  ['Streamable HTTP', () => connectHttp(srv.url, agent.key!)],
  ['stdio', () => connectStdio(srv.url, agent.key!)],
])('record tools over %s', (door, connect) => {
  const mcp = useMcpClient(connect);
  const tag = door === 'stdio' ? 's' : 'h';

  it('list_record_types gives each type with its fields; list_templates lists both templates', async () => {
    const types = await callTool(mcp, 'list_record_types', { space: 'work' });
    expect(types.json).toEqual([expect.objectContaining({ name: 'task', defaultPathPrefix: 'tasks/', additionalKeys: 'reject' })]);
    expect(types.json[0].fields.map((f: { key: string }) => f.key)).toEqual(['stage', 'owner', 'points']);
    const templates = await callTool(mcp, 'list_templates', { space: 'work' });
    expect(templates.json.map((t: { name: string; recordType: boolean }) => [t.name, t.recordType])).toEqual([
      ['note', false],
      ['task', true],
    ]);
  });

  it('create_record with metadata violating the type is an isError result listing each issue; nothing is written', async () => {
    const r = await callTool(mcp, 'create_record', {
      space: 'work',
      type: 'task',
      title: `Broken ${tag}`,
      metadata: { stage: 'later', points: 40, extra: true },
    });
    expect(r.isError).toBe(true);
    const issues = r.text
      .split('\n')
      .filter((l) => l.startsWith('- '))
      .sort();
    expect(issues.map((l) => l.replace(/: .*\(/, ' ('))).toEqual([
      '- metadata.extra (undeclared)',
      '- metadata.owner (required)',
      '- metadata.points (max)',
      '- metadata.stage (option)',
    ]);
    expect((await srv.admin.get(`/pages/work/tasks/broken-${tag}`)).status).toBe(404);
    expect(eventsFor(srv, 'work', `tasks/broken-${tag}`)).toEqual([]);
  });

  it("create_record puts a valid record under the type's prefix, never over an existing page", async () => {
    const r = await callTool(mcp, 'create_record', {
      space: 'work',
      type: 'task',
      title: `Fix Login ${tag}`,
      metadata: { owner: 'ann', points: 3 },
    });
    expect(r.isError).toBe(false);
    expect(r.json).toMatchObject({
      path: `tasks/fix-login-${tag}`,
      template: 'task',
      metadata: { owner: 'ann', points: 3, stage: 'todo', template: 'task' },
    });
    expect(r.json.content).toBe('');
    const again = await callTool(mcp, 'create_record', {
      space: 'work',
      type: 'task',
      title: `Fix Login ${tag}`,
      metadata: { owner: 'bob' },
    });
    expect(again).toMatchObject({ isError: true, text: expect.stringMatching(/already exists at work\/tasks\/fix-login-/) });
    expect((await srv.admin.get(`/pages/work/tasks/fix-login-${tag}`)).body.metadata.owner).toBe('ann');
  });

  it('query_records filters with in and orders', async () => {
    await callTool(mcp, 'create_record', {
      space: 'work',
      type: 'task',
      title: `Other ${tag}`,
      path: `tasks/other-${tag}`,
      metadata: { owner: 'bob', points: 8, stage: 'doing' },
    });
    const r = await callTool(mcp, 'query_records', {
      space: 'work',
      type: 'task',
      filters: [
        { key: 'stage', op: 'in', value: ['todo', 'doing'] },
        { key: 'owner', op: 'in', value: ['ann', 'bob'] },
      ],
      orderBy: 'points',
      order: 'desc',
    });
    expect(r.isError).toBe(false);
    const mine = r.json.pages.filter((p: { path: string }) => p.path.endsWith(`-${tag}`)).map((p: { path: string }) => p.path);
    expect(mine).toEqual([`tasks/other-${tag}`, `tasks/fix-login-${tag}`]);
    const bad = await callTool(mcp, 'query_records', { space: 'work', type: 'task', filters: [{ key: 'stage', op: 'in', value: 'todo' }] });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/- filters\[0\]\.value: /);
  });
});

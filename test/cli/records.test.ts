import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { argv, cliHereFor } from '../support/cli.ts';
import { useServer } from '../support/fixture.ts';
import { eventsFor } from '../support/records.ts';
import { fileTempDir } from '../support/temp-dirs.ts';

// The outbox subscription makes writes record events, so that a refused write could show one.
const { srv } = useServer({ spaces: [{ slug: 'work', name: 'Work' }], outbox: {} });
const tmp = fileTempDir('cli-rec');
const cli = cliHereFor(srv);

const TASK_TYPE = `---
title: Task
description: A unit of work
defaultPathPrefix: tasks/
metadataSchema:
  additionalKeys: reject
  fields:
    - { key: stage, type: select, options: [todo, doing, done], required: true, default: todo }
    - { key: owner, type: string, required: true }
    - { key: points, type: number, min: 1, max: 13 }
    - { key: due, type: date }
---
## What

## Why
`;

describe('record types from the command line', () => {
  it('a record type written from a Markdown file shows in types and templates', async () => {
    const file = path.join(tmp, 'task.md');
    fs.writeFileSync(file, TASK_TYPE);
    expect((await cli(['page', 'put', 'work', 'templates/task', '--file', file])).code).toBe(0);
    const types = await cli(['types', 'work']);
    expect(types.code).toBe(0);
    const out = types.stdout.split('\n');
    expect(out[0]).toBe('task — A unit of work  (path prefix tasks/, additional keys: reject)');
    expect(out[1]).toMatch(/^ {2}KEY\s+TYPE\s+REQUIRED\s+DETAILS$/);
    expect(out[2]).toMatch(/^ {2}stage\s+select\s+yes\s+options: todo, doing, done; default: todo$/);
    expect(out[4]).toMatch(/^ {2}points\s+number\s+range: 1\.\.13$/);
    expect(JSON.parse((await cli(['types', 'work', '--json'])).stdout)[0].fields).toHaveLength(4);
    const templates = await cli(['templates', '--space', 'work']);
    expect(templates.stdout).toMatch(/\nwork\s+task\s+record type\s+Task\s+A unit of work\n/);
  });

  it('a record that violates its type: exit 2, each field named, nothing written', async () => {
    const r = await cli(argv`page put work tasks/bad --template task --title Bad --meta stage=later --meta points=99 --meta extra=1`);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toBe('kspace: 400 validation_failed: the server rejected the input');
    expect(
      lines
        .slice(1)
        .map((l) => l.replace(/: .*\(/, ' ('))
        .sort(),
    ).toEqual(['  metadata.extra (undeclared)', '  metadata.owner (required)', '  metadata.points (max)', '  metadata.stage (option)']);
    expect((await srv.admin.get('/pages/work/tasks/bad')).status).toBe(404);
    expect(eventsFor(srv, 'work', 'tasks/bad')).toEqual([]);
  });

  it('records of a type, filtered with --where (in, >=) and ordered', async () => {
    const put = (p: string, ...meta: string[]) =>
      cli(['page', 'put', 'work', p, '--template', 'task', '--title', p, ...meta.flatMap((m) => ['--meta', m])]);
    expect((await put('tasks/a', 'owner=ann', 'points=3', 'stage=doing')).code).toBe(0);
    expect((await put('tasks/b', 'owner=bob', 'points=8')).code).toBe(0);
    expect((await put('tasks/c', 'owner=ann', 'points=1', 'stage=done')).code).toBe(0);
    const r = await cli(argv`records work task --where ${'stage in todo,doing'} --where points>=3 --order-by points --desc`);
    expect(r.code).toBe(0);
    const rows = r.stdout.trim().split('\n');
    expect(rows[0]).toMatch(/^PATH\s+TITLE\s+STAGE\s+POINTS\s+OWNER$/);
    expect(rows.slice(1).map((l) => l.split(/\s+/)[0])).toEqual(['tasks/b', 'tasks/a']);
    const json = JSON.parse((await cli(['records', 'work', 'task', '--where', 'owner=ann', '--json'])).stdout);
    expect(json.pages.map((p: { path: string }) => p.path).sort()).toEqual(['tasks/a', 'tasks/c']);
    expect(json).toHaveProperty('nextCursor');
    const none = await cli(['records', 'work', 'task', '--nonconforming']);
    expect(none.stdout).toBe('every record conforms\n');
  });
});

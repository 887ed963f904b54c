import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliHereFor } from '../support/cli.ts';
import { useServer } from '../support/fixture.ts';
import { fileTempDir } from '../support/temp-dirs.ts';

const tmp = fileTempDir('cli-bundle');
const { srv } = useServer({
  spaces: [{ slug: 'src', name: 'Source' }],
  pages: Array.from({ length: 30 }, (_, i): [string, Record<string, unknown>] => [
    `src/p/${i}`,
    { title: `Page ${i}`, content: 'x'.repeat(2000), metadata: { n: i } },
  ]),
});
const cli = cliHereFor(srv);

describe('export and import', () => {
  it('exports to a file (nothing on stderr when it is not a terminal) and imports it into a new space', async () => {
    const file = path.join(tmp, 'src.json');
    const exp = await cli(['export', 'src', '-o', file]);
    expect(exp).toEqual({ code: 0, stdout: '', stderr: '' });
    const bundle = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(bundle).toMatchObject({ format: 'service-space-export', formatVersion: 1 });
    expect(bundle.pages).toHaveLength(30);
    expect(fs.readdirSync(tmp)).toEqual(['src.json']); // no partial file left behind

    const imp = await cli(['import', 'copy', file]);
    expect(imp).toMatchObject({ code: 0, stderr: '' });
    expect(imp.stdout).toBe('imported into copy: 30 created, 0 updated, 0 skipped, 0 errors\n');
    expect((await srv.admin.get('/pages/copy/p/7')).body).toMatchObject({ title: 'Page 7', metadata: { n: 7 } });

    const again = JSON.parse((await cli(['import', 'copy', file, '--mode', 'overwrite', '--json'])).stdout);
    expect(again).toEqual({ created: 0, updated: 0, skipped: 30, errors: [] }); // identical pages write nothing
  });

  it('exports to stdout and imports from stdin', async () => {
    const exp = await cli(['export', 'src']);
    expect(exp.code).toBe(0);
    expect(JSON.parse(exp.stdout).pages).toHaveLength(30);
    const imp = await cli(['import', 'from-stdin', '-', '--json'], exp.stdout);
    expect(JSON.parse(imp.stdout)).toMatchObject({ created: 30, errors: [] });
  });

  it('a bundle of the wrong format: exit 2 naming the field; a missing file: exit 1', async () => {
    const bad = path.join(tmp, 'bad.json');
    fs.writeFileSync(bad, JSON.stringify({ format: 'other', formatVersion: 1, space: { slug: 'x', name: 'X' }, pages: [] }));
    const r = await cli(['import', 'x', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/\n {2}format: /);
    const missing = await cli(['import', 'x', path.join(tmp, 'nope.json')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(`kspace: cannot read ${path.join(tmp, 'nope.json')}: ENOENT\n`);
    expect((await cli(['export', 'no-such-space', '-o', path.join(tmp, 'n.json')])).code).toBe(1);
    expect(fs.existsSync(path.join(tmp, 'n.json'))).toBe(false);
  });
});

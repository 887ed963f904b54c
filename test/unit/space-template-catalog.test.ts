import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { parseBundle } from '../../src/domain/bundles/bundle.ts';
import {
  checkTemplateBundle,
  loadTemplateBundle,
  parseCatalogIndex,
  templatesFromFiles,
} from '../../src/domain/space-templates/catalog.ts';

const limits = loadConfig({}, {}).limits;
const entry = { id: 'wiki', name: 'Wiki', description: 'A wiki', bundle: 'wiki.json' };

describe('parseCatalogIndex', () => {
  it('reads well-formed entries, description optional', () => {
    const r = parseCatalogIndex({ templates: [entry, { id: 'b', name: ' B ', bundle: 'dir/b.json' }] });
    expect(r.issues).toEqual([]);
    expect(r.entries).toEqual([entry, { id: 'b', name: 'B', description: '', bundle: 'dir/b.json' }]);
  });

  it.each<[string, unknown]>([
    ['null', null],
    ['a list', [entry]],
    ['no templates', {}],
    ['templates an object', { templates: { a: entry } }],
  ])('yields nothing for a root that is %s', (_name, root) => {
    const r = parseCatalogIndex(root);
    expect(r.entries).toEqual([]);
    expect(r.issues[0]).toMatchObject({ key: 'templates', code: 'type' });
  });

  it.each<[string, Record<string, unknown>, string, string]>([
    ['no id', { id: undefined }, 'id', 'required'],
    ['upper-case id', { id: 'Wiki' }, 'id', 'format'],
    ['id with a slash', { id: 'a/b' }, 'id', 'format'],
    ['no name', { name: undefined }, 'name', 'required'],
    ['blank name', { name: '  ' }, 'name', 'format'],
    ['description a number', { description: 3 }, 'description', 'format'],
    ['no bundle', { bundle: undefined }, 'bundle', 'required'],
    ['bundle with ..', { bundle: '../secret.json' }, 'bundle', 'format'],
    ['bundle absolute', { bundle: '/etc/passwd' }, 'bundle', 'format'],
    ['bundle a URL', { bundle: 'https://evil.example/x.json' }, 'bundle', 'format'],
    ['bundle with a query', { bundle: 'x.json?a=1' }, 'bundle', 'format'],
    ['bundle a dot segment', { bundle: 'a/./x.json' }, 'bundle', 'format'],
    ['bundle a hidden file', { bundle: '.x.json' }, 'bundle', 'format'],
  ])('leaves out an entry with %s', (_name, change, field, code) => {
    const r = parseCatalogIndex({
      templates: [
        { ...entry, id: 'other', bundle: 'other.json' },
        { ...entry, ...change },
      ],
    });
    expect(r.entries.map((e) => e.id)).toEqual(['other']);
    expect(r.issues).toEqual([expect.objectContaining({ key: `templates[1].${field}`, code })]);
  });

  it('refuses a repeated id', () => {
    const r = parseCatalogIndex({ templates: [entry, { ...entry, bundle: 'other.json' }] });
    expect(r.entries).toHaveLength(1);
    expect(r.issues).toEqual([expect.objectContaining({ key: 'templates[1].id', code: 'duplicate' })]);
  });
});

const bundle = (pages: unknown[]) => ({ format: 'service-space-export', formatVersion: 1, space: { name: 'S' }, pages });
const taskType = {
  path: 'templates/task',
  title: 'Task',
  frontmatter: {
    metadataSchema: { additionalKeys: 'reject', fields: [{ key: 'stage', type: 'select', options: ['todo', 'done'], required: true }] },
  },
};

describe('checkTemplateBundle', () => {
  it('accepts records that satisfy their record type', () => {
    const b = parseBundle(bundle([taskType, { path: 't/1', title: 'One', metadata: { template: 'task', stage: 'todo' } }]), limits);
    expect(checkTemplateBundle(b)).toEqual([]);
  });

  it.each<[string, unknown, string]>([
    ['a wrong option', { path: 't/1', title: 'One', metadata: { template: 'task', stage: 'late' } }, 'option'],
    ['a missing required field', { path: 't/1', title: 'One', metadata: { template: 'task' } }, 'required'],
    ['an undeclared key', { path: 't/1', title: 'One', metadata: { template: 'task', stage: 'todo', x: 1 } }, 'undeclared'],
  ])('refuses a record with %s', (_name, record, code) => {
    const errors = checkTemplateBundle(parseBundle(bundle([taskType, record]), limits));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ path: 't/1', code: 'validation_failed' });
    expect(errors[0].issues![0].code).toBe(code);
  });

  it('refuses a record of a type the bundle does not have, and a malformed record type', () => {
    const errors = checkTemplateBundle(
      parseBundle(
        bundle([
          { path: 'a', title: 'A', metadata: { template: 'ghost' } },
          { path: 'templates/bad', title: 'Bad', frontmatter: { metadataSchema: { fields: [{ key: 'x', type: 'colour' }] } } },
        ]),
        limits,
      ),
    );
    expect(errors.map((e) => e.path).sort()).toEqual(['a', 'templates/bad']);
  });

  it('loadTemplateBundle names the file and the problem', () => {
    expect(() => loadTemplateBundle(entry, '{', limits)).toThrow(/wiki.json: not valid JSON/);
    expect(() => loadTemplateBundle(entry, JSON.stringify({ ...bundle([]), formatVersion: 9 }), limits)).toThrow(
      /wiki.json: not a bundle \(formatVersion/,
    );
    expect(() => loadTemplateBundle(entry, JSON.stringify(bundle([{ path: 'a//b', title: 'x' }])), limits)).toThrow(
      /wiki.json: 1 page\(s\) refused \(a\/\/b: path/,
    );
    expect(loadTemplateBundle(entry, JSON.stringify(bundle([{ path: 'a', title: 'A' }])), limits).pages).toHaveLength(1);
  });
});

describe('templatesFromFiles', () => {
  const bundleText = JSON.stringify({
    format: 'service-space-export',
    formatVersion: 1,
    exportedAt: '2026-01-01T00:00:00.000Z',
    space: { slug: 'x', name: 'X', description: '' },
    pages: [{ path: 'home', title: 'Home' }],
  });
  // Names an object would answer from Object.prototype.
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])('takes a bundle file named %s', (file) => {
    const root = JSON.stringify({ templates: [{ id: 'a', name: 'A', bundle: file }] });
    const got = templatesFromFiles(
      new Map([
        ['root.json', root],
        [file, bundleText],
      ]),
      limits,
      'remote',
    );
    expect(got.map((t) => [t.id, t.pages])).toEqual([['a', 1]]);
  });

  it.each(['constructor', '__proto__', 'toString'])('reports a missing bundle file named %s as missing', (file) => {
    const root = JSON.stringify({ templates: [{ id: 'a', name: 'A', bundle: file }] });
    expect(() => templatesFromFiles(new Map([['root.json', root]]), limits, 'remote')).toThrow(`${file}: missing`);
  });

  it('takes an entry whose id is constructor', () => {
    const root = JSON.stringify({ templates: [{ id: 'constructor', name: 'C', bundle: 'c.json' }] });
    expect(
      templatesFromFiles(
        new Map([
          ['root.json', root],
          ['c.json', bundleText],
        ]),
        limits,
        'remote',
      )[0].id,
    ).toBe('constructor');
  });
});

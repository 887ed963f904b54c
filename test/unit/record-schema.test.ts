import { describe, expect, it } from 'vitest';
import type { FieldDef, Metadata } from '../../src/model.ts';
import { parseTemplateFrontmatter, validateRecord, type RecordType } from '../../src/domain/records/schema.ts';

type FieldSpec = Omit<FieldDef, 'key'>;

function buildType(fields: FieldDef[], additionalKeys: 'allow' | 'reject' = 'allow'): RecordType {
  return { name: 'task', description: '', defaultPathPrefix: null, additionalKeys, fields, metadataDefaults: {} };
}

/** Issues of one value checked against one field, as `key:code` strings. */
function check(field: FieldSpec, value: unknown): string[] {
  const meta = { v: value } as Metadata;
  return validateRecord(buildType([{ key: 'v', ...field }]), meta).issues.map((i) => `${i.key}:${i.code}`);
}

const num: FieldSpec = { type: 'number', min: 1, max: 10 };
const sel: FieldSpec = { type: 'select', options: ['open', 'done'] };
const multi: FieldSpec = { type: 'multiselect', options: ['a', 'b', 'c'] };

describe('validateRecord: values that conform', () => {
  it.each<[string, FieldSpec, unknown]>([
    ['string', { type: 'string' }, 'hello'],
    ['string empty (optional)', { type: 'string' }, ''],
    ['text', { type: 'text' }, 'long\nmultiline text'],
    ['number at min', num, 1],
    ['number at max', num, 10],
    ['number fractional inside', num, 9.99],
    ['number unbounded negative', { type: 'number' }, -1e9],
    ['boolean true', { type: 'boolean' }, true],
    ['boolean false', { type: 'boolean' }, false],
    ['date only', { type: 'date' }, '2026-03-01'],
    ['date leap day', { type: 'date' }, '2024-02-29'],
    ['date-time no zone', { type: 'date' }, '2026-03-01T10:00'],
    ['date-time Z', { type: 'date' }, '2026-03-01T10:00:00.123Z'],
    ['date-time offset', { type: 'date' }, '2026-03-01T10:00:00+02:00'],
    ['url with query', { type: 'url' }, 'https://x.example/a?b'],
    ['url http with port', { type: 'url' }, 'http://localhost:8080/p#frag'],
    ['url upper-case scheme', { type: 'url' }, 'HTTPS://X.EXAMPLE/'],
    ['select', sel, 'done'],
    ['multiselect', multi, ['a', 'c']],
    ['multiselect empty', multi, []],
    ['list of scalars', { type: 'list' }, ['x', 2, true]],
    ['list empty', { type: 'list' }, []],
  ])('%s', (_label, field, value) => {
    expect(check(field, value)).toEqual([]);
  });
});

describe('validateRecord: values that do not conform', () => {
  it.each<[string, FieldSpec, unknown, string]>([
    ['string given number', { type: 'string' }, 5, 'type'],
    ['string given list', { type: 'string' }, ['a'], 'type'],
    ['text given boolean', { type: 'text' }, true, 'type'],
    ['number just below min', num, 0.999, 'min'],
    ['number just above max', num, 10.001, 'max'],
    ['number given numeric string (no coercion)', num, '5', 'type'],
    ['number NaN', { type: 'number' }, Number.NaN, 'type'],
    ['number Infinity', { type: 'number' }, Number.POSITIVE_INFINITY, 'type'],
    ['boolean given "true"', { type: 'boolean' }, 'true', 'type'],
    ['boolean given 1', { type: 'boolean' }, 1, 'type'],
    ['date 2026-02-30', { type: 'date' }, '2026-02-30', 'format'],
    ['date 2026-13-01', { type: 'date' }, '2026-13-01', 'format'],
    ['date yesterday', { type: 'date' }, 'yesterday', 'format'],
    ['date empty string', { type: 'date' }, '', 'format'],
    ['date given epoch number', { type: 'date' }, 1767225600000, 'type'],
    ['url relative path', { type: 'url' }, '/a/b', 'format'],
    ['url relative dot', { type: 'url' }, './sibling', 'format'],
    ['url protocol-relative', { type: 'url' }, '//x.example/a', 'format'],
    ['url javascript:', { type: 'url' }, 'javascript:alert(1)', 'format'],
    ['url mailto:', { type: 'url' }, 'mailto:a@x.example', 'format'],
    ['url ftp:', { type: 'url' }, 'ftp://x.example/f', 'format'],
    ['url with space', { type: 'url' }, 'https://x.example/a b', 'format'],
    ['url leading space', { type: 'url' }, ' https://x.example/', 'format'],
    ['url missing slashes (parser would accept)', { type: 'url' }, 'http:x.example/a', 'format'],
    ['url given number', { type: 'url' }, 42, 'type'],
    ['select wrong option', sel, 'closed', 'option'],
    ['select case differs', sel, 'Done', 'option'],
    ['select given list', sel, ['open'], 'type'],
    ['multiselect unknown option', multi, ['a', 'z'], 'option'],
    ['multiselect duplicate', multi, ['a', 'a'], 'option'],
    ['multiselect given string', multi, 'a', 'type'],
    ['multiselect with number', multi, ['a', 1], 'type'],
    ['list with nested object', { type: 'list' }, ['a', { b: 1 }], 'type'],
    ['list with nested list', { type: 'list' }, ['a', ['b']], 'type'],
    ['list with null', { type: 'list' }, [null], 'type'],
    ['list given string', { type: 'list' }, 'a', 'type'],
  ])('%s', (_label, field, value, code) => {
    expect(check(field, value)).toEqual([`v:${code}`]);
  });
});

describe('validateRecord: required', () => {
  it.each<[string, FieldSpec, Metadata, string[]]>([
    ['missing', { type: 'string' }, {}, ['v:required']],
    ['empty string', { type: 'string' }, { v: '' }, ['v:required']],
    ['empty list', { type: 'list' }, { v: [] }, ['v:required']],
    ['empty multiselect', multi, { v: [] }, ['v:required']],
    ['present', { type: 'string' }, { v: 'x' }, []],
    ['present false boolean', { type: 'boolean' }, { v: false }, []],
    ['present zero', { type: 'number' }, { v: 0 }, []],
    ['present but wrong type', { type: 'number' }, { v: 'x' }, ['v:type']],
  ])('%s', (_label, field, meta, expected) => {
    const { issues } = validateRecord(buildType([{ key: 'v', required: true, ...field }]), meta);
    expect(issues.map((i) => `${i.key}:${i.code}`)).toEqual(expected);
  });

  it('optional and absent is fine', () => {
    expect(validateRecord(buildType([{ key: 'v', type: 'number' }]), {}).issues).toEqual([]);
  });
});

describe('validateRecord: defaults', () => {
  const type = buildType([
    { key: 'status', type: 'select', options: ['open', 'done'], default: 'open', required: true },
    { key: 'tags', type: 'list', default: ['x'] },
    { key: 'n', type: 'number' },
  ]);

  it.each<[string, Metadata, { applyDefaults?: boolean } | undefined, Metadata, string[]]>([
    ['applied to absent keys', {}, undefined, { status: 'open', tags: ['x'] }, []],
    ['not overriding given values', { status: 'done', tags: [] }, undefined, { status: 'done', tags: [] }, []],
    ['not replacing an empty string (required then fails)', { status: '' }, undefined, { status: '', tags: ['x'] }, ['status:required']],
    ['not applied when applyDefaults is false', {}, { applyDefaults: false }, {}, ['status:required']],
    ['applied when applyDefaults is true', { n: 3 }, { applyDefaults: true }, { n: 3, status: 'open', tags: ['x'] }, []],
  ])('%s', (_label, input, opts, expected, codes) => {
    const result = validateRecord(type, input, opts);
    expect(result.metadata).toEqual(expected);
    expect(result.issues.map((i) => `${i.key}:${i.code}`)).toEqual(codes);
  });

  it('does not mutate the input or share the default list', () => {
    const input: Metadata = {};
    const { metadata } = validateRecord(type, input);
    expect(input).toEqual({});
    (metadata.tags as string[]).push('y');
    expect(type.fields[1].default).toEqual(['x']);
  });
});

describe('validateRecord: undeclared keys and ordering', () => {
  const fields: FieldDef[] = [
    { key: 'a', type: 'number' },
    { key: 'b', type: 'string', required: true },
  ];

  it.each<[string, 'allow' | 'reject', Metadata, string[]]>([
    ['allow accepts extra keys', 'allow', { b: 'x', extra: 1 }, []],
    ['reject flags extra keys', 'reject', { b: 'x', extra: 1 }, ['extra:undeclared']],
    ['reject allows the template stamp', 'reject', { b: 'x', template: 'task' }, []],
    ['allow allows the template stamp', 'allow', { b: 'x', template: 'task' }, []],
    [
      'field order then undeclared in input order',
      'reject',
      { z: 1, a: 'no', y: 2 },
      ['a:type', 'b:required', 'z:undeclared', 'y:undeclared'],
    ],
  ])('%s', (_label, additionalKeys, meta, expected) => {
    const { issues, metadata } = validateRecord(buildType(fields, additionalKeys), meta);
    expect(issues.map((i) => `${i.key}:${i.code}`)).toEqual(expected);
    expect(metadata).toEqual(meta);
  });

  it('issues carry a message', () => {
    const [issue] = validateRecord(buildType(fields), {}).issues;
    expect(issue).toMatchObject({ key: 'b', code: 'required', message: expect.stringMatching(/required/) });
  });
});

describe('parseTemplateFrontmatter: well-formed', () => {
  it('builds the record type', () => {
    const { type, issues } = parseTemplateFrontmatter('task', {
      description: 'A task',
      defaultPathPrefix: 'tasks/',
      metadataDefaults: { owner: 'me', tags: ['a'] },
      metadataSchema: {
        additionalKeys: 'reject',
        fields: [
          { key: 'status', type: 'select', options: ['open', 'done'], default: 'open', required: true, label: 'Status' },
          { key: 'points', type: 'number', min: 0, max: 13, description: 'Effort' },
          { key: 'due', type: 'date', default: '2026-03-01' },
          { key: 'labels', type: 'multiselect', options: ['x', 'y'], default: [] },
        ],
      },
    });
    expect(issues).toEqual([]);
    expect(type).toEqual({
      name: 'task',
      description: 'A task',
      defaultPathPrefix: 'tasks/',
      additionalKeys: 'reject',
      metadataDefaults: { owner: 'me', tags: ['a'] },
      fields: [
        { key: 'status', type: 'select', options: ['open', 'done'], default: 'open', required: true, label: 'Status' },
        { key: 'points', type: 'number', min: 0, max: 13, description: 'Effort' },
        { key: 'due', type: 'date', default: '2026-03-01' },
        { key: 'labels', type: 'multiselect', options: ['x', 'y'], default: [] },
      ],
    });
  });

  it.each<[string, Record<string, unknown>, RecordType | null]>([
    ['no metadataSchema → plain template', { description: 'Plain', metadataDefaults: { a: 1 } }, null],
    ['empty frontmatter', {}, null],
    ['empty schema → allow, no fields', { metadataSchema: {} }, buildType([])],
    [
      'min equal to max',
      { metadataSchema: { fields: [{ key: 'n', type: 'number', min: 2, max: 2 }] } },
      buildType([{ key: 'n', type: 'number', min: 2, max: 2 }]),
    ],
    ['null defaultPathPrefix', { defaultPathPrefix: null, metadataSchema: { additionalKeys: 'allow', fields: [] } }, buildType([])],
  ])('%s', (_label, fm, expected) => {
    const { type, issues } = parseTemplateFrontmatter('task', fm);
    expect(issues).toEqual([]);
    expect(type).toEqual(expected);
  });
});

describe('parseTemplateFrontmatter: malformed', () => {
  const field = (f: Record<string, unknown>) => ({ metadataSchema: { fields: [f] } });
  const F = 'metadataSchema.fields[0]';

  it.each<[string, Record<string, unknown>, string, string]>([
    ['metadataSchema not an object', { metadataSchema: 'yes' }, 'metadataSchema', 'type'],
    ['metadataSchema a list', { metadataSchema: [] }, 'metadataSchema', 'type'],
    ['metadataSchema null', { metadataSchema: null }, 'metadataSchema', 'type'],
    ['additionalKeys unknown', { metadataSchema: { additionalKeys: 'deny' } }, 'metadataSchema.additionalKeys', 'option'],
    ['fields not an array', { metadataSchema: { fields: { a: 1 } } }, 'metadataSchema.fields', 'type'],
    ['field not an object', { metadataSchema: { fields: ['status'] } }, F, 'type'],
    ['field key missing', field({ type: 'string' }), `${F}.key`, 'required'],
    ['field key not a string', field({ key: 3, type: 'string' }), `${F}.key`, 'format'],
    ['field key empty', field({ key: '', type: 'string' }), `${F}.key`, 'format'],
    ['field key with space', field({ key: 'a b', type: 'string' }), `${F}.key`, 'format'],
    ['field key too long', field({ key: 'k'.repeat(65), type: 'string' }), `${F}.key`, 'format'],
    ['field key template reserved', field({ key: 'template', type: 'string' }), `${F}.key`, 'schema'],
    ['field type missing', field({ key: 'a' }), `${F}.type`, 'required'],
    ['field type unknown', field({ key: 'a', type: 'integer' }), `${F}.type`, 'option'],
    ['required not boolean', field({ key: 'a', type: 'string', required: 'yes' }), `${F}.required`, 'type'],
    ['label not string', field({ key: 'a', type: 'string', label: 1 }), `${F}.label`, 'type'],
    ['select without options', field({ key: 'a', type: 'select' }), `${F}.options`, 'required'],
    ['select options not array', field({ key: 'a', type: 'select', options: 'a,b' }), `${F}.options`, 'type'],
    ['select options empty', field({ key: 'a', type: 'select', options: [] }), `${F}.options`, 'option'],
    ['multiselect option not string', field({ key: 'a', type: 'multiselect', options: ['x', 2] }), `${F}.options[1]`, 'type'],
    ['multiselect duplicate option', field({ key: 'a', type: 'multiselect', options: ['x', 'x'] }), `${F}.options[1]`, 'duplicate'],
    ['options on a string field', field({ key: 'a', type: 'string', options: ['x'] }), `${F}.options`, 'schema'],
    ['min not a number', field({ key: 'a', type: 'number', min: '1' }), `${F}.min`, 'type'],
    ['max not finite', field({ key: 'a', type: 'number', max: Number.POSITIVE_INFINITY }), `${F}.max`, 'type'],
    ['min greater than max', field({ key: 'a', type: 'number', min: 5, max: 4 }), `${F}.min`, 'min'],
    ['min on a string field', field({ key: 'a', type: 'string', min: 1 }), `${F}.min`, 'schema'],
    ['max on a date field', field({ key: 'a', type: 'date', max: 1 }), `${F}.max`, 'schema'],
    ['default wrong type', field({ key: 'a', type: 'number', default: 'x' }), `${F}.default`, 'type'],
    ['default below min', field({ key: 'a', type: 'number', min: 1, default: 0 }), `${F}.default`, 'min'],
    ['default not an option', field({ key: 'a', type: 'select', options: ['x'], default: 'y' }), `${F}.default`, 'option'],
    ['default bad date', field({ key: 'a', type: 'date', default: '2026-02-30' }), `${F}.default`, 'format'],
    ['default an object', field({ key: 'a', type: 'list', default: { x: 1 } }), `${F}.default`, 'type'],
    ['default empty on required', field({ key: 'a', type: 'string', required: true, default: '' }), `${F}.default`, 'required'],
    ['metadataDefaults not an object', { metadataDefaults: ['a'] }, 'metadataDefaults', 'type'],
    ['metadataDefaults nested object', { metadataDefaults: { a: { b: 1 } } }, 'metadataDefaults.a', 'type'],
    ['metadataDefaults nested list', { metadataDefaults: { a: [[1]] } }, 'metadataDefaults.a', 'type'],
    ['metadataDefaults null value', { metadataDefaults: { a: null } }, 'metadataDefaults.a', 'type'],
    ['metadataDefaults sets the stamp', { metadataDefaults: { template: 'x' } }, 'metadataDefaults.template', 'schema'],
    ['defaultPathPrefix not a string', { defaultPathPrefix: 3 }, 'defaultPathPrefix', 'type'],
    ['description not a string', { description: ['a'] }, 'description', 'type'],
  ])('%s', (_label, fm, key, code) => {
    const { issues } = parseTemplateFrontmatter('task', fm);
    expect(issues.map((i) => `${i.key}:${i.code}`)).toEqual([`${key}:${code}`]);
    expect(issues[0].message).not.toBe('');
  });

  it('flags a duplicate field key at its second declaration', () => {
    const { type, issues } = parseTemplateFrontmatter('task', {
      metadataSchema: {
        fields: [
          { key: 'a', type: 'string' },
          { key: 'b', type: 'url' },
          { key: 'a', type: 'number' },
        ],
      },
    });
    expect(issues.map((i) => `${i.key}:${i.code}`)).toEqual(['metadataSchema.fields[2].key:duplicate']);
    expect(type?.fields.map((f) => f.key)).toEqual(['a', 'b']);
  });

  it('reports every bad field, each under its own index', () => {
    const { issues } = parseTemplateFrontmatter('task', {
      metadataSchema: { additionalKeys: 1, fields: [{ key: 'ok', type: 'string' }, { type: 'bogus' }, 7] },
    });
    expect(issues.map((i) => `${i.key}:${i.code}`)).toEqual([
      'metadataSchema.additionalKeys:option',
      'metadataSchema.fields[1].key:required',
      'metadataSchema.fields[1].type:option',
      'metadataSchema.fields[2]:type',
    ]);
  });

  it('still returns a type (from the well-formed parts) when the schema is malformed', () => {
    const { type } = parseTemplateFrontmatter('task', { metadataSchema: { fields: 'nope' } });
    expect(type).toEqual(buildType([]));
  });
});

import { describe, expect, it } from 'vitest';
import { mapsTo } from '../support/cases.ts';
import { parseFilters } from '../../src/domain/search/filters.ts';
import { parseTemplateRef, stampOf, templateNameOf } from '../../src/domain/records/templates.ts';

const one = (f: unknown) => parseFilters(JSON.stringify([f]));

describe('parseFilters: accepted', () => {
  it.each<[string, unknown, unknown]>([
    ['eq string', { key: 'stage', op: 'eq', value: 'todo' }, { op: 'eq', key: 'stage', value: { t: 's', v: 'todo' } }],
    ['eq number', { key: 'n', op: 'eq', value: 3 }, { op: 'eq', key: 'n', value: { t: 'n', v: 3 } }],
    ['eq boolean', { key: 'b', op: 'eq', value: false }, { op: 'eq', key: 'b', value: { t: 'b', v: 0 } }],
    [
      'eq date typed as epoch ms',
      { key: 'd', op: 'eq', value: '2026-01-01' },
      { op: 'eq', key: 'd', value: { t: 'd', v: Date.UTC(2026, 0, 1) } },
    ],
    ['neq', { key: 'a', op: 'neq', value: 'x' }, { op: 'neq', key: 'a', value: { t: 's', v: 'x' } }],
    [
      'gt date with offset',
      { key: 'd', op: 'gt', value: '2026-01-01T02:00:00+02:00' },
      { op: 'gt', key: 'd', value: { t: 'd', v: Date.UTC(2026, 0, 1) } },
    ],
    ['lte string', { key: 's', op: 'lte', value: 'm' }, { op: 'lte', key: 's', value: { t: 's', v: 'm' } }],
    [
      'invalid date stays a string',
      { key: 'd', op: 'lt', value: '2026-02-30' },
      { op: 'lt', key: 'd', value: { t: 's', v: '2026-02-30' } },
    ],
    ['contains', { key: 'tags', op: 'contains', value: 'x' }, { op: 'contains', key: 'tags', value: { t: 's', v: 'x' } }],
    ['exists tolerates value true', { key: 'a', op: 'exists', value: true }, { op: 'exists', key: 'a' }],
    ['missing', { key: 'a', op: 'missing' }, { op: 'missing', key: 'a' }],
    [
      'in, deduplicated',
      { key: 'a', op: 'in', value: ['x', 1, 'x', true] },
      {
        op: 'in',
        key: 'a',
        values: [
          { t: 's', v: 'x' },
          { t: 'n', v: 1 },
          { t: 'b', v: 1 },
        ],
      },
    ],
  ])('%s', (_label, filter, expected) => {
    expect(one(filter)).toEqual({ conditions: [expected], issues: [] });
  });

  it.each([null, '', '  ', '[]'])('no filters for %j', (raw) => {
    expect(parseFilters(raw)).toEqual({ conditions: [], issues: [] });
  });

  it('accepts 20 filters', () => {
    expect(parseFilters(JSON.stringify(Array(20).fill({ key: 'a', op: 'exists' }))).conditions).toHaveLength(20);
  });
});

describe('parseFilters: refused', () => {
  it.each<[string, string, string, string]>([
    ['not JSON', '[{', 'filters', 'format'],
    ['not an array', '{"key":"a"}', 'filters', 'type'],
    ['21 filters', JSON.stringify(Array(21).fill({ key: 'a', op: 'exists' })), 'filters', 'max'],
    ['element not an object', '[1]', 'filters[0]', 'type'],
    ['key missing', '[{"op":"exists"}]', 'filters[0].key', 'required'],
    ['key not a string', '[{"key":1,"op":"exists"}]', 'filters[0].key', 'type'],
    ['key malformed', '[{"key":"a b","op":"exists"}]', 'filters[0].key', 'format'],
    ['key __proto__', '[{"key":"__proto__","op":"exists"}]', 'filters[0].key', 'format'],
    ['op missing', '[{"key":"a"}]', 'filters[0].op', 'required'],
    ['op unknown', '[{"key":"a","op":"like","value":"x"}]', 'filters[0].op', 'option'],
    ['eq without value', '[{"key":"a","op":"eq"}]', 'filters[0].value', 'required'],
    ['eq with list', '[{"key":"a","op":"eq","value":[1]}]', 'filters[0].value', 'type'],
    ['eq with null', '[{"key":"a","op":"eq","value":null}]', 'filters[0].value', 'type'],
    ['eq with object', '[{"key":"a","op":"eq","value":{}}]', 'filters[0].value', 'type'],
    ['gt with boolean', '[{"key":"a","op":"gt","value":true}]', 'filters[0].value', 'type'],
    ['in with scalar', '[{"key":"a","op":"in","value":"x"}]', 'filters[0].value', 'type'],
    ['in empty', '[{"key":"a","op":"in","value":[]}]', 'filters[0].value', 'type'],
    ['in nested', '[{"key":"a","op":"in","value":[[1]]}]', 'filters[0].value', 'type'],
    ['in too many', JSON.stringify([{ key: 'a', op: 'in', value: Array.from({ length: 101 }, (_, i) => i) }]), 'filters[0].value', 'max'],
  ])('%s', (_label, raw, key, code) => {
    const r = parseFilters(raw);
    expect(r.conditions).toEqual([]);
    expect(r.issues).toContainEqual(expect.objectContaining({ key, code }));
  });

  it('names the failing element among good ones', () => {
    const r = parseFilters(
      JSON.stringify([
        { key: 'a', op: 'exists' },
        { key: 'b', op: 'nope' },
      ]),
    );
    expect(r.issues.map((i) => i.key)).toEqual(['filters[1].op']);
  });
});

describe('template names and references', () => {
  mapsTo('templateNameOf(%j) = %j', templateNameOf, [
    ['templates/task', 'task'],
    ['templates/a:b', 'a:b'],
    ['templates/task/example', null],
    ['templates', null],
    ['notes/templates/task', null],
    ['Templates/task', null],
  ]);

  it.each<[string, unknown]>([
    ['task', { space: null, name: 'task' }],
    ['other-space:task', { space: 'other-space', name: 'task' }],
    ['~bob:journal', { space: '~bob', name: 'journal' }],
    ['wiki:a:b', { space: 'wiki', name: 'a:b' }],
    ['Bad Slug:task', { key: 'template', code: 'format' }],
    ['wiki:', { key: 'template', code: 'format' }],
    ['a/b', { key: 'template', code: 'format' }],
    ['..', { key: 'template', code: 'format' }],
  ])('parseTemplateRef(%j)', (ref, expected) => {
    expect(parseTemplateRef(ref)).toMatchObject(expected as object);
  });

  mapsTo('stampOf(%j) = %j', stampOf, [
    ['task', 'task'],
    ['shared:bug', 'bug'],
    ['~bob:a:b', 'a:b'],
  ]);
});

import { describe, expect, it } from 'vitest';
import { mapsTo } from '../../support/cases.ts';
import { parseRoute, safeNext } from '../../../src/web/router.ts';
import { parseSnippet } from '../../../src/web/lib/snippet.ts';
import { buildTree } from '../../../src/web/lib/tree.ts';
import { compareText, relativeTime } from '../../../src/web/lib/format.ts';
import { fromRaw, initialRaw } from '../../../src/web/lib/metadata-form.ts';
import { fromFilterRows } from '../../../src/web/lib/filters.ts';
import type { FieldDef } from '../../../src/model.ts';

describe('parseRoute', () => {
  it.each([
    ['/app/', '', { name: 'home' }],
    ['/app/s/wiki', '', { name: 'space', space: 'wiki' }],
    ['/app/p/wiki/a/b%20c', '', { name: 'page', space: 'wiki', path: 'a/b c', mode: { kind: 'view' } }],
    ['/app/p/wiki/a', '?edit', { name: 'page', space: 'wiki', path: 'a', mode: { kind: 'edit' } }],
    ['/app/p/wiki/a', '?rev=3', { name: 'page', space: 'wiki', path: 'a', mode: { kind: 'rev', rev: 3 } }],
    ['/app/p/wiki/a', '?diff=1..4', { name: 'page', space: 'wiki', path: 'a', mode: { kind: 'diff', from: 1, to: 4 } }],
    ['/app/s/wiki/links/broken', '', { name: 'broken', space: 'wiki' }],
    ['/app/gallery', '?template=built-in/crm', { name: 'gallery', template: 'built-in/crm' }],
    ['/app/new', '?space=w&template=w:task', { name: 'new', space: 'w', template: 'w:task', path: '' }],
    ['/app/p/wiki', '', { name: 'notFound' }],
    ['/app/p/wiki/%E0%A4%A', '', { name: 'notFound' }],
    ['/app/whatever', '', { name: 'notFound' }],
  ])('%s%s', (path, search, want) => {
    expect(parseRoute(path, search)).toMatchObject(want);
  });

  mapsTo('sign-in returns only inside the app: %s → %s', safeNext, [
    [null, '/app/'],
    ['/app/p/w/a?edit', '/app/p/w/a?edit'],
    ['https://evil.example/', '/app/'],
    ['//evil.example/app/', '/app/'],
    ['/app/sign-in', '/app/'],
  ]);
});

describe('parseSnippet', () => {
  it('keeps marks and turns everything else into text', () => {
    expect(parseSnippet('…a &lt;script&gt; <mark>word</mark> &amp; <b>x</b>…')).toEqual([
      { text: '…a <script> ', mark: false },
      { text: 'word', mark: true },
      { text: ' & x…', mark: false },
    ]);
  });
});

describe('buildTree', () => {
  it('nests pages by path; a page may also be a folder', () => {
    const t = buildTree([
      { path: 'guide', title: 'Guide', version: 1, updatedAt: '' },
      { path: 'guide/setup', title: 'Setup', version: 1, updatedAt: '' },
      { path: 'a/b/c', title: 'C', version: 1, updatedAt: '' },
      { path: 'z', title: 'Zed', version: 1, updatedAt: '' },
    ]);
    expect(t.map((n) => [n.name, n.page?.title ?? null, n.children.map((c) => c.name)])).toEqual([
      ['a', null, ['b']],
      ['guide', 'Guide', ['setup']],
      ['z', 'Zed', []],
    ]);
  });
});

describe('record form values', () => {
  const fields: FieldDef[] = [
    { key: 'n', type: 'number' },
    { key: 'b', type: 'boolean' },
    { key: 'm', type: 'multiselect', options: ['x', 'y'] },
    { key: 'l', type: 'list' },
    { key: 's', type: 'string', default: 'd' },
    { key: 'e', type: 'string' },
  ];
  it('fills defaults and converts back; what cannot be converted is sent as typed', () => {
    const raw = initialRaw(fields, { n: 3 }, { m: ['x'] });
    expect(raw).toEqual({ n: '3', b: false, m: ['x'], l: '', s: 'd', e: '' });
    expect(fromRaw(fields, { ...raw, n: 'abc', l: 'one\n\n two ' })).toEqual({ n: 'abc', b: false, m: ['x'], l: ['one', 'two'], s: 'd' });
  });
});

describe('filters from the builder', () => {
  it('types values by field, splits `in` lists, drops values for exists/missing', () => {
    const typeOf = (k: string) => (({ points: 'number', done: 'boolean' }) as Record<string, string>)[k] ?? 'string';
    expect(
      fromFilterRows(
        [
          { key: 'stage', op: 'in', value: 'todo, doing' },
          { key: 'points', op: 'gte', value: '3' },
          { key: 'done', op: 'eq', value: 'true' },
          { key: 'due', op: 'exists', value: 'x' },
          { key: ' ', op: 'eq', value: '' },
        ],
        typeOf,
      ),
    ).toEqual([
      { key: 'stage', op: 'in', value: ['todo', 'doing'] },
      { key: 'points', op: 'gte', value: 3 },
      { key: 'done', op: 'eq', value: true },
      { key: 'due', op: 'exists' },
    ]);
  });
});

describe('relativeTime and compareText (no Intl on the first render of a view)', () => {
  const now = Date.parse('2026-11-29T12:00:00Z');
  mapsTo('%s → %s', (iso) => relativeTime(iso, now), [
    ['2026-11-29T11:59:30Z', 'just now'],
    ['2026-11-29T11:57:00Z', '3 minutes ago'],
    ['2026-11-29T11:59:00Z', '1 minute ago'],
    ['2026-11-29T12:05:00Z', 'in 5 minutes'],
    ['2026-11-29T10:00:00Z', '2 hours ago'],
    ['2026-11-28T12:00:00Z', 'yesterday'],
    ['2026-11-30T12:00:00Z', 'tomorrow'],
    ['2026-11-25T12:00:00Z', '4 days ago'],
    ['not a date', 'not a date'],
  ]);

  it('writes a date a week or more away as its day', () => {
    const d = new Date(2026, 2, 12, 12);
    expect(relativeTime(d.toISOString(), now)).toBe('12 Mar 2026');
  });

  it('orders names alphabetically, accents and case aside', () => {
    expect(['beta', 'Zeta', 'Élan', 'alpha', 'eclair'].sort(compareText)).toEqual(['alpha', 'beta', 'eclair', 'Élan', 'Zeta']);
  });
});

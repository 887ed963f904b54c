import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { mapsTo } from '../support/cases.ts';
import { loadConfig } from '../../src/config/config.ts';
import { AppError } from '../../src/domain/errors.ts';
import { isTemplatePath, orderForImport, parseBundle } from '../../src/domain/bundles/bundle.ts';

const limits = loadConfig({}, {}).limits;
const envelope = (pages: unknown[], extra: Record<string, unknown> = {}) => ({
  format: 'service-space-export',
  formatVersion: 1,
  exportedAt: '2026-01-01T00:00:00.000Z',
  space: { slug: 's', name: 'S', description: 'd' },
  pages,
  ...extra,
});

function fatal(data: unknown): { key: string; code: string }[] {
  try {
    parseBundle(data, limits);
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).status).toBe(400);
    return (e as AppError).issues!.map(({ key, code }) => ({ key, code }));
  }
  throw new Error('expected a 400');
}

describe('parseBundle: the envelope', () => {
  it.each<[string, unknown, { key: string; code: string }]>([
    ['null', null, { key: 'body', code: 'type' }],
    ['an array', [], { key: 'body', code: 'type' }],
    ['a string', 'bundle', { key: 'body', code: 'type' }],
    ['no format', { formatVersion: 1, space: {}, pages: [] }, { key: 'format', code: 'required' }],
    ['another format', { ...envelope([]), format: 'notion-export' }, { key: 'format', code: 'option' }],
    ['no formatVersion', { ...envelope([]), formatVersion: undefined }, { key: 'formatVersion', code: 'required' }],
    ['formatVersion 3', { ...envelope([]), formatVersion: 3 }, { key: 'formatVersion', code: 'option' }],
    ['formatVersion "1"', { ...envelope([]), formatVersion: '1' }, { key: 'formatVersion', code: 'option' }],
    ['no space', { ...envelope([]), space: undefined }, { key: 'space', code: 'required' }],
    ['space a string', { ...envelope([]), space: 'x' }, { key: 'space', code: 'type' }],
    ['space.name a number', { ...envelope([]), space: { name: 3 } }, { key: 'space.name', code: 'type' }],
    ['no pages', { ...envelope([]), pages: undefined }, { key: 'pages', code: 'required' }],
    ['pages an object', { ...envelope([]), pages: {} }, { key: 'pages', code: 'type' }],
  ])('refuses %s', (_name, data, issue) => {
    expect(fatal(data)).toContainEqual(issue);
  });

  it('accepts a minimal bundle and tolerates unknown keys', () => {
    const r = parseBundle({ format: 'service-space-export', formatVersion: 1, space: {}, pages: [], generator: 'x' }, limits);
    expect(r).toEqual({ space: { slug: '', name: '', description: '' }, pages: [], errors: [], files: [] });
  });

  it('reads the files of a version 2 bundle, each blob checked against its sha256', () => {
    const blob = Buffer.from('hello');
    const sha = createHash('sha256').update(blob).digest('hex');
    const other = createHash('sha256').update('x').digest('hex');
    const r = parseBundle(
      {
        format: 'service-space-export',
        formatVersion: 2,
        space: {},
        pages: [{ path: 'a', title: 'A' }],
        attachments: [
          { path: 'a', name: 'h.txt', contentType: 'text/plain', sha256: sha },
          { path: 'a', name: 'copy.txt', sha256: sha },
          { path: 'a', name: 'gone.txt', sha256: other },
          { path: 'a', name: 'bad/name', sha256: sha },
          { path: 'a', name: 'x', sha256: 'nothex' },
          { path: 'a', name: 'v.txt', sha256: sha, source: 'Assets/v.txt' },
          ...['../up.txt', '/abs.txt', 'a//b.txt', '.hidden/x.txt', 'note.md', 'ctl\u0001.txt', ''].map((source) => ({
            path: 'a',
            name: 's.txt',
            sha256: sha,
            source,
          })),
        ],
        blobs: { [sha]: blob.toString('base64') },
      },
      limits,
    );
    expect(r.files!.map((f) => [f.name, f.data.toString(), f.source])).toEqual([
      ['h.txt', 'hello', null],
      ['copy.txt', 'hello', null],
      ['v.txt', 'hello', 'Assets/v.txt'],
    ]);
    expect(r.errors.map((e) => [e.path, e.message])).toEqual([
      ['a', "attachment 'gone.txt': its blob is missing from `blobs`"],
      ['a', "attachment 'bad/name': a file name may not contain '/' or '\\'"],
      ['a', expect.stringMatching(/sha256/)],
      ...Array.from({ length: 7 }, () => ['a', expect.stringMatching(/^attachment 's\.txt': source: a source path /)]),
    ]);
    const tampered = parseBundle(
      {
        format: 'service-space-export',
        formatVersion: 2,
        space: {},
        pages: [],
        attachments: [{ path: 'a', name: 'h.txt', sha256: sha }],
        blobs: { [sha]: Buffer.from('other').toString('base64') },
      },
      limits,
    );
    expect(tampered.errors[0].message).toMatch(/does not match its sha256/);
    const orphan = parseBundle(
      {
        format: 'service-space-export',
        formatVersion: 2,
        space: {},
        pages: [{ path: 'a', title: 'A' }],
        attachments: [{ path: 'b', name: 'h.txt', sha256: sha }],
        blobs: { [sha]: blob.toString('base64') },
      },
      limits,
    );
    expect(orphan.files).toEqual([]);
    expect(orphan.errors).toEqual([{ path: 'b', code: 'validation_failed', message: "attachment 'h.txt': the bundle has no page 'b'" }]);
  });
});

describe('parseBundle: pages', () => {
  it('fills absent optional fields with empty values and drops version and updatedAt', () => {
    const r = parseBundle(envelope([{ path: 'a', title: 'A', version: 7, updatedAt: 'x', extra: true }]), limits);
    expect(r.pages).toEqual([{ path: 'a', title: 'A', content: '', frontmatter: {}, metadata: {} }]);
  });

  it.each<[string, unknown, string, string, string]>([
    ['not an object', 5, 'pages[1]', 'body', 'type'],
    ['no path', { title: 'T' }, 'pages[1]', 'path', 'required'],
    ['no title', { path: 'p' }, 'p', 'title', 'required'],
    ['blank title', { path: 'p', title: '   ' }, 'p', 'title', 'format'],
    ['content a number', { path: 'p', title: 'T', content: 1 }, 'p', 'content', 'type'],
    ['frontmatter a list', { path: 'p', title: 'T', frontmatter: [] }, 'p', 'frontmatter', 'type'],
    ['metadata null', { path: 'p', title: 'T', metadata: null }, 'p', 'metadata', 'type'],
    ['nested metadata value', { path: 'p', title: 'T', metadata: { a: { b: 1 } } }, 'p', 'metadata.a', 'type'],
    ['bad metadata key', { path: 'p', title: 'T', metadata: { 'a b': 1 } }, 'p', 'metadata.a b', 'format'],
    ['empty segment', { path: 'a//b', title: 'T' }, 'a//b', 'path', 'format'],
    ['dot-dot segment', { path: 'a/../b', title: 'T' }, 'a/../b', 'path', 'format'],
    ['leading slash', { path: '/a', title: 'T' }, '/a', 'path', 'format'],
    ['reserved last segment', { path: 'a/revisions', title: 'T' }, 'a/revisions', 'path', 'reserved'],
  ])('reports a page with %s and keeps the others', (_name, bad, path, key, code) => {
    const r = parseBundle(envelope([{ path: 'good', title: 'G' }, bad]), limits);
    expect(r.pages.map((p) => p.path)).toEqual(['good']);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ path, code: 'validation_failed' });
    expect(r.errors[0].issues![0]).toMatchObject({ key, code });
    expect(r.errors[0].message).toContain(key);
  });

  it('uses the first of two pages with the same path and reports the second', () => {
    const r = parseBundle(
      envelope([
        { path: 'a', title: 'First' },
        { path: 'a', title: 'Second' },
      ]),
      limits,
    );
    expect(r.pages.map((p) => p.title)).toEqual(['First']);
    expect(r.errors).toEqual([expect.objectContaining({ path: 'a', code: 'duplicate_path' })]);
  });
});

describe('templates first', () => {
  mapsTo('isTemplatePath(%s) = %s', isTemplatePath, [
    ['templates/adr', true],
    ['templates/a-b.c', true],
    ['templates', false],
    ['templates/x/y', false],
    ['docs/templates/x', false],
    ['templatesx/y', false],
  ]);

  it('orders template pages first and keeps the bundle order otherwise', () => {
    const order = orderForImport([
      { path: 'b' },
      { path: 'templates/t2' },
      { path: 'a' },
      { path: 'templates/t1' },
      { path: 'templates/x/y' },
    ]);
    expect(order.map((p) => p.path)).toEqual(['templates/t2', 'templates/t1', 'b', 'a', 'templates/x/y']);
  });
});

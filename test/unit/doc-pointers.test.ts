// Every pointer to docs/ in the source and in the OpenAPI text names a file that exists and, when
// it names a section (`docs/x.md, Section` or `docs/x.md#anchor`), a heading or a bold paragraph
// lead of that file that begins so. A pointer is a promise; a renamed section breaks it here.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { endpoints } from '../../src/http/endpoints.ts';
import { openApiDocument } from '../../src/http/openapi.ts';

const root = path.resolve(import.meta.dirname, '../..');
const POINTER = /docs\/([a-z0-9-]+\.md)(?:#([a-z0-9-]+)|,\s+([A-Z][\w -]*\w)(?=[).;,]))?/g;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : /\.(ts|tsx)$/.test(e.name) ? [p] : [];
  });
}

const anchorOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .trim()
    .replace(/\s+/g, '-');

/** The headings and bold paragraph leads (`**Memory.**`) of a doc. */
function sectionsOf(doc: string): string[] {
  const text = fs.readFileSync(path.join(root, 'docs', doc), 'utf8');
  return [...text.matchAll(/^#{1,6} +(.+)$|^(?:- )?\*\*([^*]+)\*\*/gm)].map((m) => (m[1] ?? m[2]).trim());
}

/** What is wrong with each pointer in `text` (comments joined across lines first). */
function brokenPointers(where: string, text: string): string[] {
  const joined = text.replace(/\n\s*(?:\/\/|\*) ?/g, ' ');
  const out: string[] = [];
  for (const [pointer, doc, anchor, section] of joined.matchAll(POINTER)) {
    if (!fs.existsSync(path.join(root, 'docs', doc))) {
      out.push(`${where}: ${pointer} (no such file)`);
      continue;
    }
    const sections = sectionsOf(doc);
    if (anchor && !sections.some((s) => anchorOf(s) === anchor)) out.push(`${where}: ${pointer} (no such anchor)`);
    if (section && !sections.some((s) => s.toLowerCase().startsWith(section.toLowerCase())))
      out.push(`${where}: ${pointer} (no such section)`);
  }
  return out;
}

describe('pointers to docs/', () => {
  it('in src/ name files and sections that exist', () => {
    const broken = sourceFiles(path.join(root, 'src')).flatMap((f) => brokenPointers(path.relative(root, f), fs.readFileSync(f, 'utf8')));
    expect(broken).toEqual([]);
  });

  it('in the OpenAPI document name files and sections that exist', () => {
    expect(brokenPointers('/openapi.json', JSON.stringify(openApiDocument(endpoints, 'test')))).toEqual([]);
  });

  it('are found, and a missing one is reported', () => {
    expect(brokenPointers('x', '// (see docs/api.md, Errors) and\n// docs/api.md#errors')).toEqual([]);
    expect(brokenPointers('x', '// see docs/nothing.md and (docs/api.md,\n// No such part).')).toEqual([
      'x: docs/nothing.md (no such file)',
      'x: docs/api.md, No such part (no such section)',
    ]);
  });
});

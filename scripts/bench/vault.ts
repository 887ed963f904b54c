// The real-vault check (issue 39): the public Obsidian help vault (its `en/` folder, not in the
// repository: scripts/lib/vault-source.ts says where it is taken from) imported with `kspace
// import-dir` into a real server, then compared link by link with an independent model of
// Obsidian's link resolution (scripts/lib/obsidian-model.ts):
// - every link and embed the model resolves, kspace resolves to the same note (and heading or
//   block) or the same file, read from each page's `?render=html`;
// - every file a note uses is attached to that note (same bytes), and the files no note uses are
//   the ones reported `not_referenced`;
// - the space exported as a Markdown folder (`kspace export --format markdown`) and read by the
//   model again resolves each of those links to the corresponding note or file.
// A difference is printed link by link and fails the check (`npm run bench` exits 1).
// `npm run bench -- --only vault [--vault <obsidian-help>/en]`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { authHeaders, startChild } from '../lib/child-server.ts';
import { readPageHtml, type HtmlRef, type PageHtml } from '../lib/kspace-html-refs.ts';
import { resolveVault, type ModelLink, type ModelVault, type Target } from '../lib/obsidian-model.ts';
import { HOW_TO_GET, findVault, readVault } from '../lib/vault-source.ts';
import { kspaceCli } from './folder-import.ts';
import type { BenchOptions, BenchResult } from '../bench.ts';

const SPACE = 'vault';
const pagePath = (note: string) => note.replace(/\.md$/, '');
const enc = (p: string) => p.split('/').map(encodeURIComponent).join('/');

/** A model target as a comparable key: `link a/b#h3`, `embed a/b#^id`, `file <sha256>`. */
export function modelKey(l: ModelLink, sha: Map<string, string>, page = pagePath): string {
  return targetKey(l.to, l.embed, sha, page);
}

function targetKey(to: Target, embed: boolean, sha: Map<string, string>, page: (p: string) => string): string {
  if (to.kind === 'unresolved') return 'unresolved';
  if (to.kind === 'file') return `file ${sha.get(to.path)}`;
  const sub =
    to.heading !== undefined
      ? `#h${to.heading === 'missing' ? '?' : to.heading}`
      : to.block !== undefined
        ? `#^${to.block === 'missing' ? '?' : to.block.toLowerCase()}`
        : '';
  return `${embed ? 'embed' : 'link'} ${page(to.path)}${sub}`;
}

type Diff = { note: string; line: number; raw: string; model: string; kspace: string };

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-bench-vault-'));
  try {
    const source = findVault(opts.vault, tmp);
    if (!source) {
      const given = opts.vault ?? process.env.KSPACE_VAULT;
      console.log(given ? `--vault: '${given}' is not a folder` : HOW_TO_GET);
      return [{ name: 'vault: the Obsidian help vault found', value: 0, unit: '', pass: false, check: true }];
    }
    return await check(source.dir, source.label, source.missing, tmp);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

async function check(dir: string, label: string, missing: string[], tmp: string): Promise<BenchResult[]> {
  const t0 = performance.now();
  console.log(`vault: ${label}${missing.length ? ` (absent from the snapshot: ${missing.join(', ')})` : ''}`);
  const vault = readVault(dir);
  const model = resolveVault(vault);
  const server = await startChild(path.join(tmp, 'data'), { SERVICE_MAX_IMPORT_BYTES: String(512 * 1024 * 1024) });
  try {
    const summary = JSON.parse(await kspaceCli(server.url, ['import-dir', dir, '--space', SPACE, '--json'])) as {
      created: number;
      errors: unknown[];
      warnings?: unknown[];
      leftOut?: Array<{ path: string; code: string }>;
    };
    const get = async (p: string) => {
      const r = await fetch(`${server.url}${p}`, { headers: authHeaders() });
      if (!r.ok) throw new Error(`GET ${p}: ${r.status} ${await r.text()}`);
      return r.json();
    };
    const pages = new Map<string, PageHtml>();
    const attached = new Map<string, Map<string, string>>(); // page → name → sha256
    for (const note of vault.notes.keys()) {
      const p = pagePath(note);
      pages.set(p, readPageHtml(((await get(`/pages/${SPACE}/${enc(p)}?render=html`)) as { html: string }).html));
      const files = (await get(`/pages/${SPACE}/${enc(p)}/files?limit=200`)) as { files: Array<{ name: string; sha256: string }> };
      attached.set(p, new Map(files.files.map((f) => [f.name, f.sha256])));
    }
    const diffs: Diff[] = [];
    const further: Diff[] = [];
    const byNote = Map.groupBy(model.links, (l) => l.note);
    let same = 0;
    for (const [note, links] of byNote) same += compareNote(note, links, vault.sha, pages, attached, diffs, further);

    // Every used file attached to each note that uses it; the others reported as unused.
    const used = new Set<string>();
    const notAttached: string[] = [];
    for (const l of model.links) {
      if (l.to.kind !== 'file') continue;
      used.add(l.to.path);
      const shas = new Set(attached.get(pagePath(l.note))?.values());
      if (!shas.has(vault.sha.get(l.to.path)!)) notAttached.push(`${l.note}:${l.line} ${l.raw}: ${l.to.path} is not attached`);
    }
    const reported = new Set((summary.leftOut ?? []).filter((x) => x.code === 'not_referenced').map((x) => x.path));
    const unusedWrong = [
      ...vault.files.filter((f) => !used.has(f) && !reported.has(f)).map((f) => `${f}: no note uses it, not reported as not_referenced`),
      ...[...reported].filter((f) => used.has(f)).map((f) => `${f}: used, but reported as not_referenced`),
    ];
    // Heading keys are indexes: both sides must see the same headings in each note.
    for (const [note, f] of model.facts) {
      const n = pages.get(pagePath(note))!.headings.length;
      if (n !== f.headings.length) notAttached.push(`${note}: ${f.headings.length} headings in the model, ${n} rendered by kspace`);
    }
    const attachedCount = [...attached.values()].reduce((n, m) => n + m.size, 0);
    const checkSeconds = (performance.now() - t0) / 1000;

    // The export read back by the model.
    const t1 = performance.now();
    const out = path.join(tmp, 'export');
    await kspaceCli(server.url, ['export', SPACE, '--format', 'markdown', '-o', out]);
    const round = roundTrip(model, vault.sha, out);
    const roundSeconds = (performance.now() - t1) / 1000;

    const resolved = model.links.filter((l) => l.to.kind !== 'unresolved');
    const show = (d: Diff) => `${d.note}:${d.line} ${d.raw}\n    model:  ${d.model}\n    kspace: ${d.kspace}`;
    report('links that differ (model → kspace)', diffs.map(show));
    report('links to a note where kspace finds a heading or block the model does not (not a failure)', further.map(show));
    report('files and headings', [...notAttached, ...unusedWrong]);
    report('links the export resolves differently', round.diffs);
    if (summary.errors.length)
      report(
        'import errors',
        summary.errors.map((e) => JSON.stringify(e)),
      );
    const ok = (n: number) => ({ pass: n === 0, check: true, target: '0' });
    return [
      { name: 'vault: notes / other files', value: vault.notes.size, unit: `notes, ${vault.files.length} files` },
      {
        name: 'vault: links (embeds among them) outside code',
        value: model.links.length,
        unit: `links, ${model.links.filter((l) => l.embed).length} embeds`,
      },
      { name: 'vault: links Obsidian resolves (the model)', value: resolved.length, unit: 'links' },
      { name: 'vault: of those, kspace resolves to the same target', value: same, unit: 'links' },
      { name: 'vault: links that differ', value: diffs.length, unit: 'links', ...ok(diffs.length) },
      { name: 'vault: of the others, same note, kspace finds a heading or block the model does not', value: further.length, unit: 'links' },
      { name: 'vault: files used / attached (page, name) pairs', value: used.size, unit: `used, ${attachedCount} attached` },
      {
        name: 'vault: used files not attached, unused files misreported, notes whose headings differ',
        value: notAttached.length + unusedWrong.length,
        unit: `(${reported.size} reported unused)`,
        ...ok(notAttached.length + unusedWrong.length),
      },
      { name: 'vault: import and link check (server start to the last page read)', value: checkSeconds, unit: 's' },
      { name: 'vault: export links the model resolves the same', value: round.same, unit: `of ${resolved.length}` },
      { name: 'vault: export links that differ', value: round.diffs.length, unit: 'links', ...ok(round.diffs.length) },
      { name: 'vault: export: notes / other files written', value: round.notes, unit: `notes, ${round.files} files` },
      { name: 'vault: export and re-read', value: roundSeconds, unit: 's' },
    ];
  } finally {
    await server.stop();
  }
}

function report(title: string, lines: string[]): void {
  if (!lines.length) return;
  console.log(`${title} (${lines.length}):`);
  for (const l of lines) console.log(`  ${l}`);
}

/** A kspace reference as a key comparable with modelKey. */
function kspaceKey(ref: HtmlRef, pages: Map<string, PageHtml>, attached: Map<string, Map<string, string>>): string {
  if (ref.kind === 'unavailable' || (ref.kind === 'page' && ref.broken)) return 'unresolved';
  if (ref.kind === 'file') {
    const segs = ref.href
      .replace(/[?#].*$/, '')
      .slice('/files/'.length)
      .split('/')
      .map(decodeURIComponent);
    const sha = attached.get(segs.slice(1, -1).join('/'))?.get(segs[segs.length - 1]);
    return sha ? `file ${sha}` : 'unresolved'; // a file the page does not have: a broken reference
  }
  if (ref.space !== SPACE) return `page in ${ref.space}`;
  const target = pages.get(ref.path);
  let sub = '';
  if (ref.fragment.startsWith('^')) sub = target?.ids.has(ref.fragment) ? `#${ref.fragment.toLowerCase()}` : '#^?';
  else if (ref.fragment) {
    const i = target?.headings.indexOf(ref.fragment) ?? -1;
    sub = `#h${i < 0 ? '?' : i}`;
  }
  return `${ref.embed ? 'embed' : 'link'} ${ref.path}${sub}`;
}

/** Pairs one note's model links with what kspace rendered; returns how many resolved links agree. */
function compareNote(
  note: string,
  links: ModelLink[],
  sha: Map<string, string>,
  pages: Map<string, PageHtml>,
  attached: Map<string, Map<string, string>>,
  diffs: Diff[],
  further: Diff[],
): number {
  const html = pages.get(pagePath(note))!;
  const left = html.refs.map((r) => ({ r, key: kspaceKey(r, pages, attached) }));
  const take = (key: string) => {
    const i = left.findIndex((x) => x.key === key);
    return i < 0 ? null : left.splice(i, 1)[0];
  };
  let same = 0;
  const unmatched: Array<{ l: ModelLink; key: string }> = [];
  for (const l of links) {
    const key = modelKey(l, sha);
    if (l.to.kind === 'unresolved') take('unresolved');
    else if (take(key)) same++;
    else unmatched.push({ l, key });
  }
  // The note is the same, and kspace finds a heading or block the model's Obsidian does not:
  // listed apart, not a failure (the reader lands on the note either way).
  for (const u of [...unmatched]) {
    const section = /#(?:h|\^)\?$/.exec(u.key);
    if (!section) continue;
    const prefix = `${u.key.slice(0, section.index)}#`;
    const i = left.findIndex((x) => x.key.startsWith(prefix));
    if (i < 0) continue;
    const [k] = left.splice(i, 1);
    unmatched.splice(unmatched.indexOf(u), 1);
    further.push({ note, line: u.l.line, raw: u.l.raw, model: u.key, kspace: `${k.key}  ${k.r.html}` });
  }
  // What is left on either side: paired in order for the report.
  const extras = left.filter((x) => x.key !== 'unresolved');
  for (const { l, key } of unmatched) {
    const k = extras.shift() ?? left.shift();
    diffs.push({ note, line: l.line, raw: l.raw, model: key, kspace: k ? `${k.key}  ${k.r.html}` : 'nothing (not a link)' });
  }
  for (const k of extras) diffs.push({ note, line: 0, raw: '(no link of the model)', model: 'nothing', kspace: `${k.key}  ${k.r.html}` });
  return same;
}

/** The model over the exported folder: each link the model resolved in the vault must reach the same note, heading, block or file. */
function roundTrip(
  model: ModelVault,
  sha: Map<string, string>,
  out: string,
): { same: number; diffs: string[]; notes: number; files: number } {
  const exported = readVault(out);
  const again = resolveVault(exported);
  const byNote = Map.groupBy(again.links, (l) => l.note);
  const diffs: string[] = [];
  let same = 0;
  for (const [note, links] of Map.groupBy(model.links, (l) => l.note)) {
    const theirs = [...(byNote.get(note) ?? [])];
    if (!byNote.has(note)) {
      diffs.push(`${note}: not in the export`);
      continue;
    }
    const keys = theirs.map((l) => modelKey(l, exported.sha));
    for (const l of links) {
      if (l.to.kind === 'unresolved') continue;
      const key = modelKey(l, sha);
      const i = keys.indexOf(key);
      if (i >= 0) {
        keys.splice(i, 1);
        same++;
      } else diffs.push(`${note}:${l.line} ${l.raw}: ${key} in the vault, not in the export`);
    }
  }
  return { same, diffs, notes: exported.notes.size, files: exported.files.length };
}

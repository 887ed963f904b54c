// The Obsidian help vault through `kspace sync` and back (issue 38, "Real folders"; docs/sync.md):
// a copy of the vault synced into a new space, that space synced into an empty folder, and each
// note and attached file of the vault compared byte for byte with what came back. Every difference
// is counted under the documented export rule that makes it; one no rule names is listed.
// Not part of `npm test` (the vault is not in git):
//   node scripts/sync-vault.ts [<vault folder>]   (default /work/corpora/obsidian-help/en)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { authHeaders, BENCH_ADMIN_KEY, startChild } from './lib/child-server.ts';
import { sourceArgs } from './lib/node-flags.ts';
import { fileToPage } from '../src/domain/bundles/markdown-folder.ts';
import { samePage } from '../src/cli/sync/remote.ts';

const vault = path.resolve(process.argv[2] ?? '/work/corpora/obsidian-help/en');

function walk(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const child = rel ? `${rel}/${e.name}` : e.name;
    if (e.name.startsWith('.')) continue;
    if (e.isDirectory()) out.push(...walk(dir, child));
    else if (e.isFile()) out.push(child);
  }
  return out.sort();
}

async function sync(url: string, dir: string): Promise<string> {
  const child = spawn(process.execPath, [...sourceArgs(), 'sync', dir, '--space', 'vault', '--once', '--json'], {
    env: { ...process.env, SERVICE_URL: url, SERVICE_API_KEY: BENCH_ADMIN_KEY },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const code = await new Promise<number>((r) => child.on('close', (c) => r(c ?? -1)));
  if (code !== 0) throw new Error(`sync ${dir}: exit ${code} ${err}`);
  return out;
}

/** The text after a note's frontmatter. */
const body = (text: string) => text.replace(/^---[ \t]*\r?\n(?:[\s\S]*?\r?\n)?---[ \t]*(?:\r?\n|$)/, '');

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-sync-vault-'));
const server = await startChild(path.join(work, 'data'), { SERVICE_MAX_IMPORT_BYTES: String(256 * 1024 * 1024) });
try {
  await fetch(`${server.url}/spaces`, {
    method: 'POST',
    headers: { ...authHeaders(), 'content-type': 'application/json' },
    body: JSON.stringify({ slug: 'vault', name: 'Vault' }),
  });
  const a = path.join(work, 'a');
  fs.cpSync(vault, a, { recursive: true });
  const up = JSON.parse(await sync(server.url, a));
  const b = path.join(work, 'b');
  const down = JSON.parse(await sync(server.url, b));
  const orig = walk(vault);
  const back = new Set(walk(b));
  const notes = orig.filter((f) => f.endsWith('.md'));
  const others = orig.filter((f) => !f.endsWith('.md'));
  const count: Record<string, number> = {};
  const add = (k: string) => (count[k] = (count[k] ?? 0) + 1);
  const unexplained: string[] = [];
  for (const n of notes) {
    if (!back.has(n)) {
      add('note missing');
      unexplained.push(`${n}: missing`);
      continue;
    }
    const x = fs.readFileSync(path.join(vault, n), 'utf8');
    const y = fs.readFileSync(path.join(b, n), 'utf8');
    if (x === y) {
      add('notes byte-identical');
      continue;
    }
    const px = fileToPage({ path: n, text: x });
    const py = fileToPage({ path: n, text: y });
    // The same properties, in the export's order (metadata, then frontmatter).
    const sameProps = !('code' in px) && !('code' in py) && samePage({ ...px, content: '' }, { ...py, content: '' });
    if (body(x) === body(y) && sameProps) {
      add('notes: properties written in another order or spelling (metadata first, then frontmatter)');
      continue;
    }
    const lx = body(x).split('\n');
    const ly = body(y).split('\n');
    // A respelled reference: an embed or link to a file made `files/<name>`, a wikilink given the path Obsidian finds.
    const respelled = (l: string, m: string) => /\]\(files\//.test(m) || (/\[\[[^\]|]*\|/.test(m) && m !== l);
    if (sameProps && lx.length === ly.length && lx.every((l, i) => l === ly[i] || respelled(l, ly[i]))) {
      const files = lx.some((l, i) => l !== ly[i] && /\]\(files\//.test(ly[i]));
      add(
        files
          ? 'notes: file references made files/<name> (and frontmatter written)'
          : 'notes: wikilinks respelled (and frontmatter written)',
      );
      continue;
    }
    add('notes: other difference');
    unexplained.push(n);
  }
  const copies = new Map<string, string[]>(); // name → files of b under a files/ folder
  for (const f of back) if (/(^|\/)files\//.test(f)) copies.set(path.basename(f), [...(copies.get(path.basename(f)) ?? []), f]);
  const leftOut = new Set<string>();
  for (const o of others) {
    const want = fs.readFileSync(path.join(vault, o));
    const found = copies.get(path.basename(o)) ?? [];
    if (found.length === 0) {
      add('files: not referenced by a note (not imported)');
      leftOut.add(o);
      continue;
    }
    if (found.every((f) => fs.readFileSync(path.join(b, f)).equals(want))) add(`files: byte-identical at files/<name>`);
    else {
      add('files: different bytes');
      unexplained.push(`${o}: bytes differ`);
    }
  }
  const extra = [...back].filter((f) => f.endsWith('.md') && !notes.includes(f));
  console.log(
    JSON.stringify(
      {
        vault,
        notes: notes.length,
        files: others.length,
        up,
        down,
        count,
        copiesWritten: [...copies.values()].flat().length,
        extraNotes: extra,
        unexplained,
      },
      null,
      2,
    ),
  );
} finally {
  await server.stop();
  if (!process.env.KEEP) fs.rmSync(work, { recursive: true, force: true });
  else console.error(work);
}

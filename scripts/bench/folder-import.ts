// Markdown-folder import figure (issue 21): a vault of 10,000 notes (nested folders, YAML
// properties of every type, five wikilinks each — by name to notes in other folders, by path,
// with headings and labels; half of them to notes later in the import) read by `kspace
// import-dir` as a user runs it, from the start of the command to every link indexed; then
// the same folder imported again in overwrite mode (identical: nothing written).
// `node scripts/bench.ts --only folder-import [--quick]`.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BENCH_ADMIN_KEY, ROOT, authHeaders, startChild } from '../lib/child-server.ts';
import { sourceArgs } from '../lib/node-flags.ts';
import type { BenchOptions, BenchResult } from '../bench.ts';

const FOLDERS = ['Projects', 'Projects/Archive', 'Daily', 'People', 'Reference/Tools', 'Reference/Ideas', 'Inbox', 'Meetings/2025'];

export async function run(opts: BenchOptions): Promise<BenchResult[]> {
  const notes = opts.quick ? 4000 : 10_000;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-bench-folder-'));
  const vault = path.join(dir, 'vault');
  const server = await startChild(path.join(dir, 'data'), { SERVICE_MAX_IMPORT_BYTES: String(256 * 1024 * 1024) });
  try {
    writeVault(vault, notes);
    const first = await importDir(server.url, vault, 'skip');
    // README.txt, which no note links to, is a file left out, not an error.
    if (first.result.created !== notes || first.result.errors.length !== 0 || first.result.leftOut?.length !== 1)
      throw new Error(`import: ${JSON.stringify(first.result).slice(0, 400)}`);
    const broken = await fetch(`${server.url}/spaces/vault/links/broken?limit=10`, { headers: authHeaders() });
    const b = (await broken.json()) as unknown[];
    if (b.length) throw new Error(`broken links after the import: ${JSON.stringify(b).slice(0, 300)}`);
    const again = await importDir(server.url, vault, 'overwrite');
    if (again.result.skipped !== notes) throw new Error(`re-import: ${JSON.stringify(again.result).slice(0, 400)}`);
    // The same vault with its links as plain text: what the wikilinks cost.
    const plainVault = path.join(dir, 'plain');
    writeVault(plainVault, notes, false);
    const plain = await importDir(server.url, plainVault, 'skip', 'plain');
    return [
      {
        name: `import-dir of the same vault without links (the floor: reading, converting, importing)`,
        value: notes / plain.seconds,
        unit: 'pages/s',
      },
      {
        name: `kspace import-dir of a ${notes.toLocaleString('en')}-note vault (5 wikilinks each, every link resolved)`,
        value: notes / first.seconds,
        unit: 'pages/s',
        target: '≥ 2,000',
        pass: notes / first.seconds >= 2000,
      },
      { name: 'import-dir: the same vault again, --mode overwrite (identical → skipped)', value: notes / again.seconds, unit: 'pages/s' },
    ];
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function writeVault(vault: string, n: number, links = true): void {
  const folderOf = (i: number) => FOLDERS[i % FOLDERS.length];
  const para = 'Notes from the week: what was decided, who follows up, and what is still open for discussion.\n';
  fs.mkdirSync(path.join(vault, '.obsidian'), { recursive: true });
  fs.writeFileSync(path.join(vault, '.obsidian', 'app.json'), '{}');
  fs.writeFileSync(path.join(vault, 'README.txt'), 'not a note');
  for (const f of FOLDERS) fs.mkdirSync(path.join(vault, f), { recursive: true });
  for (let i = 0; i < n; i++) {
    const refs = [
      `[[Note ${(i * 7 + 3) % n}]]`, // by name, anywhere
      `[[Note ${(i + 1) % n}|next]]`, // the next one, created later
      `[[${folderOf((i * 13 + 5) % n)}/Note ${(i * 13 + 5) % n}#Summary]]`, // by path, with a heading
      `[[Note ${(i * 31 + 11) % n}#Summary|see]]`,
      `[[Note ${(i * 97 + 1) % n}]]`,
    ];
    const text = [
      '---',
      `tags: [bench, t${i % 20}]`,
      `priority: ${i % 5}`,
      `done: ${i % 2 === 0}`,
      `due: 2025-${String((i % 12) + 1).padStart(2, '0')}-15`,
      `owner: person-${i % 50}`,
      '---',
      `# Note ${i}`,
      '',
      '## Summary',
      '',
      para.repeat(8),
      links ? `Related: ${refs.join(', ')}.` : `Related: ${refs.join(', ').replace(/\[\[|\]\]/g, '')}.`,
      '',
    ].join('\n');
    fs.writeFileSync(path.join(vault, folderOf(i), `Note ${i}.md`), text);
  }
}

async function importDir(url: string, vault: string, mode: string, space = 'vault') {
  const t0 = performance.now();
  const r = await kspaceCli(url, ['import-dir', vault, '--space', space, '--mode', mode, '--json']);
  const seconds = (performance.now() - t0) / 1000;
  type Summary = { created: number; updated: number; skipped: number; errors: unknown[]; leftOut?: unknown[] };
  return { seconds, result: JSON.parse(r) as Summary };
}

/** Runs `kspace <args>` from source against the server at `url` as the bench's admin; its standard output (a non-zero exit throws). */
export async function kspaceCli(url: string, args: string[]): Promise<string> {
  const r = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [...sourceArgs(), ...args], {
      env: { ...process.env, SERVICE_URL: url, SERVICE_API_KEY: BENCH_ADMIN_KEY },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
  if (r.code !== 0) throw new Error(`kspace ${args[0]}: exit ${r.code} ${r.stderr}`);
  return r.stdout;
}

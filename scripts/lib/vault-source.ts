// Where the vault bench (scripts/bench/vault.ts) gets the public Obsidian help vault, and how it
// reads a folder into the model's Vault (obsidian-model.ts). The vault is not in the repository:
// it is a folder given with --vault / KSPACE_VAULT, or the `en/` folder of a clone of
// https://github.com/obsidianmd/obsidian-help (KSPACE_VAULT_GIT: a clone or a bare git dir).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Vault } from './obsidian-model.ts';

const CLONE = path.join(os.homedir(), '.cache', 'kspace-vault', 'obsidian-help');
/** Where a machine that fetched the repository as a bare mirror keeps it. */
const MIRROR = '/work/.mirror/obsidianmd+obsidian-help/repo';

export const HOW_TO_GET = `the Obsidian help vault is not here. Get it with
  git clone https://github.com/obsidianmd/obsidian-help ${CLONE}
or pass its en/ folder: npm run bench -- --only vault --vault <obsidian-help>/en (or KSPACE_VAULT=<folder>).`;

export type VaultSource = { dir: string; label: string; missing: string[] };

/**
 * The vault folder: `given` (--vault), else KSPACE_VAULT, else `en/` of KSPACE_VAULT_GIT or of
 * the clone or mirror above (a bare git dir is extracted into `tmp`). Null when there is none
 * (or the folder given is not one).
 */
export function findVault(given: string | undefined, tmp: string): VaultSource | null {
  const dir = given ?? process.env.KSPACE_VAULT;
  if (dir) {
    if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return null;
    // The clone itself rather than its en/ folder: take en/.
    const en = path.join(dir, 'en');
    if (fs.existsSync(path.join(dir, '.git')) && fs.existsSync(en)) return { dir: en, label: en, missing: [] };
    return { dir, label: dir, missing: [] };
  }
  for (const git of [process.env.KSPACE_VAULT_GIT, CLONE, MIRROR]) {
    if (!git || !fs.existsSync(git)) continue;
    if (fs.existsSync(path.join(git, 'en')) && fs.existsSync(path.join(git, '.git')))
      return { dir: path.join(git, 'en'), label: `${git}/en at ${gitHead(path.join(git, '.git'))}`, missing: [] };
    return extract(git, path.join(tmp, 'source'));
  }
  return null;
}

function gitHead(gitDir: string): string {
  const r = spawnSync('git', ['--git-dir', gitDir, 'log', '-1', '--format=%h of %cs'], { encoding: 'utf8' });
  return r.stdout.trim();
}

/**
 * `en/` at HEAD of a bare git dir, written under `out` (so the vault is `out/en`). A blob the
 * mirror lacks (a snapshot may leave out its largest files) is listed in `missing`, not fatal.
 */
function extract(gitDir: string, out: string): VaultSource {
  const git = (args: string[], input?: string) => spawnSync('git', ['--git-dir', gitDir, ...args], { input, maxBuffer: 1 << 30 });
  const tree = git(['ls-tree', '-r', '-z', 'HEAD', 'en']);
  if (tree.status !== 0) throw new Error(`git ls-tree in ${gitDir}: ${tree.stderr}`);
  const entries = tree.stdout
    .toString('utf8')
    .split('\0')
    .filter(Boolean)
    .map((e) => {
      const [meta, file] = e.split('\t');
      return { sha: meta.split(' ')[2], file };
    });
  const batch = git(['cat-file', '--batch'], entries.map((e) => e.sha).join('\n') + '\n').stdout;
  const missing: string[] = [];
  let at = 0;
  for (const e of entries) {
    const nl = batch.indexOf(10, at);
    const header = batch.subarray(at, nl).toString();
    at = nl + 1;
    if (header.endsWith(' missing')) {
      missing.push(e.file.slice('en/'.length));
      continue;
    }
    const size = Number(header.split(' ')[2]);
    const target = path.join(out, e.file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, batch.subarray(at, at + size));
    at += size + 1;
  }
  return { dir: path.join(out, 'en'), label: `${gitDir} (en/ at ${gitHead(gitDir)})`, missing };
}

/** A folder as the model reads it: notes and other files by `/`-separated path, dot-names skipped (as Obsidian and import-dir skip them). */
export function readVault(root: string, skip: (rel: string) => boolean = () => false): Vault & { sha: Map<string, string> } {
  const notes = new Map<string, string>();
  const files: string[] = [];
  const sha = new Map<string, string>();
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue;
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (skip(p)) continue;
      if (e.isDirectory()) walk(p);
      else if (!e.isFile()) continue;
      else if (p.endsWith('.md')) notes.set(p, fs.readFileSync(path.join(root, p), 'utf8'));
      else {
        files.push(p);
        sha.set(
          p,
          createHash('sha256')
            .update(fs.readFileSync(path.join(root, p)))
            .digest('hex'),
        );
      }
    }
  };
  walk('');
  return { notes, files, sha };
}

// bin/ts-cache.mjs, the TypeScript cache bin/kspace preloads: run in a child Node over a
// throwaway checkout (its cache lives beside the hook, in node_modules/.cache/kspace-ts).
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const HOOK = path.resolve(import.meta.dirname, '../../bin/ts-cache.mjs');

let root: string;
let cache: string;

function write(rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

function run(entry: string, withHook = true): { stdout: string; stderr: string; status: number | null } {
  const args = [...(withHook ? ['--import', path.join(root, 'bin/ts-cache.mjs')] : []), path.join(root, entry)];
  const r = spawnSync(process.execPath, args, { encoding: 'utf8' });
  return { stdout: r.stdout, stderr: r.stderr, status: r.status };
}

const entries = () => (fs.existsSync(cache) ? fs.readdirSync(cache).sort() : []);

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-ts-cache-'));
  cache = path.join(root, 'node_modules/.cache/kspace-ts');
  fs.mkdirSync(path.join(root, 'bin'));
  fs.copyFileSync(HOOK, path.join(root, 'bin/ts-cache.mjs'));
  write('package.json', '{ "type": "module" }');
  write('src/a.ts', "import { b } from './b.ts';\nconst n: number = b();\nconsole.log('a', n);\n");
  write('src/b.ts', 'export function b(): number {\n  return 41 + 1;\n}\n');
});

afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('bin/ts-cache.mjs', () => {
  it('runs the TypeScript, keeps Node’s own stripped text per file, and prints no warning', () => {
    const r = run('src/a.ts');
    expect(r).toEqual({ stdout: 'a 42\n', stderr: '', status: 0 });
    const kept = entries()
      .map((e) => fs.readFileSync(path.join(cache, e), 'utf8'))
      .sort();
    const expected = ['src/a.ts', 'src/b.ts']
      .map((f) => stripTypeScriptTypes(fs.readFileSync(path.join(root, f), 'utf8'), { mode: 'strip' }))
      .sort();
    expect(kept).toEqual(expected);
  });

  it('answers from the cache without stripping again', () => {
    run('src/a.ts');
    const b = entries().find((e) => fs.readFileSync(path.join(cache, e), 'utf8').includes('41 + 1'))!;
    fs.writeFileSync(path.join(cache, b), 'export function b() { return 7; }\n');
    expect(run('src/a.ts').stdout).toBe('a 7\n');
  });

  it('strips an edited file again and drops its old entry', () => {
    run('src/a.ts');
    write('src/b.ts', 'export function b(): number {\n  return 5;\n}\n');
    expect(run('src/a.ts').stdout).toBe('a 5\n');
    expect(entries()).toHaveLength(2);
  });

  it('keeps line and column in stack traces, as Node’s own stripping does', () => {
    write(
      'src/trace.ts',
      "type T = { x: number };\nconst t: T = { x: 1 };\nconsole.log(new Error('here').stack!.split('\\n')[1].trim(), t.x);\n",
    );
    const cached = run('src/trace.ts');
    expect(cached.stdout).toMatch(/trace\.ts:3:\d+\)? 1\n$/);
    expect(cached.stdout).toBe(run('src/trace.ts', false).stdout);
  });

  it('runs from memory when the cache cannot be written', () => {
    fs.mkdirSync(path.dirname(cache), { recursive: true });
    fs.writeFileSync(cache, 'not a directory');
    expect(run('src/a.ts')).toEqual({ stdout: 'a 42\n', stderr: '', status: 0 });
  });

  it('serves worker threads too (bin/kspace’s helper thread is one)', () => {
    write('src/main.ts', "import { Worker } from 'node:worker_threads';\nnew Worker(new URL('./worker.ts', import.meta.url));\n");
    write('src/worker.ts', "const w: string = 'worker';\nconsole.log(w);\n");
    expect(run('src/main.ts').stdout).toBe('worker\n');
    const kept = entries().map((e) => fs.readFileSync(path.join(cache, e), 'utf8'));
    expect(kept.some((t) => t.includes('console.log(w)'))).toBe(true);
  });

  it('leaves .ts files under node_modules to Node, which refuses them', () => {
    write('node_modules/dep/index.ts', 'export const d: number = 1;\n');
    write('src/uses-dep.ts', "import { d } from '../node_modules/dep/index.ts';\nconsole.log(d);\n");
    const r = run('src/uses-dep.ts');
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING');
  });

  it('is what bin/kspace runs', () => {
    const out = execFileSync(path.resolve(import.meta.dirname, '../../bin/kspace'), ['--version'], { encoding: 'utf8' });
    expect(out.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect(fs.readFileSync(path.resolve(import.meta.dirname, '../../bin/kspace'), 'utf8')).toContain('--import "$here/ts-cache.mjs"');
  });
});

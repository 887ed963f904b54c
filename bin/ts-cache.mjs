// Preloaded by bin/kspace (`--import`): runs kspace's TypeScript with its types stripped once and
// kept on disk, so that a start from a checkout does not load Node's own stripper. That stripper
// (amaro, a WebAssembly build of swc) stays in memory for the life of the process: ~18 MB of RSS
// in each thread that loads a .ts file, the server's and its helper's (docs/performance.md,
// Memory). Same output as Node's: `stripTypeScriptTypes` in strip mode keeps every position, so
// stack traces point at the .ts lines. Plain JavaScript, as it is what strips the TypeScript.
import { hash } from 'node:crypto';
import fs from 'node:fs';
import { registerHooks, stripTypeScriptTypes } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(import.meta.dirname, '..');
const rootUrl = pathToFileURL(root + path.sep).href;
const cacheDir = path.join(root, 'node_modules', '.cache', 'kspace-ts');

/** Node's strip, without the ExperimentalWarning it prints the first time (Node prints none for its own). */
function strip(source) {
  const emitWarning = process.emitWarning;
  process.emitWarning = (warning, ...rest) => {
    const type = typeof rest[0] === 'string' ? rest[0] : rest[0]?.type;
    if (type !== 'ExperimentalWarning') emitWarning.call(process, warning, ...rest);
  };
  try {
    return stripTypeScriptTypes(source, { mode: 'strip' });
  } finally {
    process.emitWarning = emitWarning;
  }
}

/** The stripped text of one file: from the cache when its content was stripped before. */
function strippedSource(file) {
  const source = fs.readFileSync(file, 'utf8');
  // One entry per file, named by its path and its content: an edit makes a new name.
  const prefix = hash('sha1', file).slice(0, 16);
  const entry = path.join(cacheDir, `${prefix}-${hash('sha1', source)}.js`);
  try {
    return fs.readFileSync(entry, 'utf8');
  } catch {
    // not stripped yet (or the cache is unreadable): strip it below
  }
  const out = strip(source);
  try {
    fs.mkdirSync(cacheDir, { recursive: true });
    for (const old of fs.readdirSync(cacheDir)) if (old.startsWith(`${prefix}-`)) fs.rmSync(path.join(cacheDir, old), { force: true });
    // Written aside and renamed: servers, CLIs and tests start side by side from one checkout.
    const tmp = `${entry}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    fs.writeFileSync(tmp, out);
    fs.renameSync(tmp, entry);
  } catch {
    // a read-only checkout: run from memory, as Node itself would
  }
  return out;
}

registerHooks({
  load(url, context, nextLoad) {
    // kspace's own .ts files; those of its dependencies go on to Node, which refuses to strip them.
    if (url.startsWith(rootUrl) && url.endsWith('.ts') && !url.slice(rootUrl.length).includes('node_modules/')) {
      return { format: 'module', source: strippedSource(fileURLToPath(url)), shortCircuit: true };
    }
    return nextLoad(url, context);
  },
});

// The server's Node/V8 flags (bin/node-flags), for the places that start Node themselves: the
// single executable's build and the benchmarks' child servers, so they run what `npm start` runs.
import fs from 'node:fs';
import path from 'node:path';

export function nodeFlags(): string[] {
  const file = path.resolve(import.meta.dirname, '../../bin/node-flags');
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

/** Node's arguments for kspace from source, as bin/kspace gives them: the flags, the TypeScript cache, the entry. */
export function sourceArgs(extraFlags: string[] = []): string[] {
  const bin = path.resolve(import.meta.dirname, '../../bin');
  return [...nodeFlags(), ...extraFlags, '--import', path.join(bin, 'ts-cache.mjs'), path.join(bin, 'kspace.ts')];
}

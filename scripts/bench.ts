// `npm run bench [-- --quick] [-- --only core,search] [-- --pages 100000]`: runs the benchmark
// sections and prints one line per figure with its target. Not part of `npm test`.
import { parseArgs } from 'node:util';

export type BenchOptions = { pages: number; quick: boolean };
export type BenchResult = { name: string; value: number; unit: string; target?: string; pass?: boolean };
type Section = (opts: BenchOptions) => Promise<BenchResult[]>;

const SECTIONS: Record<string, () => Promise<Section>> = {
  core: async () => (await import('./bench/core.ts')).run,
  bundles: async () => (await import('./bench/bundles.ts')).run,
  records: async () => (await import('./bench/records.ts')).run,
  webhooks: async () => (await import('./bench/webhooks.ts')).run,
  search: async () => (await import('./bench/search.ts')).run,
  doors: async () => (await import('./bench/doors.ts')).run,
  web: async () => (await import('./bench/web.ts')).run,
  moves: async () => (await import('./bench/moves.ts')).run,
  files: async () => (await import('./bench/files.ts')).run,
  ops: async () => (await import('./bench/ops.ts')).run,
  'folder-import': async () => (await import('./bench/folder-import.ts')).run,
};

const { values } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, only: { type: 'string' }, pages: { type: 'string', default: '100000' } },
});
const opts: BenchOptions = { quick: values.quick!, pages: Number(values.pages) };
const names = values.only ? values.only.split(',') : Object.keys(SECTIONS);
let failed = 0;
for (const name of names) {
  const load = SECTIONS[name];
  if (!load) throw new Error(`unknown bench section '${name}' (have: ${Object.keys(SECTIONS).join(', ')})`);
  console.log(`\n## ${name}`);
  for (const r of await (await load())(opts)) {
    const v = r.value >= 100 ? Math.round(r.value).toLocaleString('en') : r.value.toFixed(r.unit === '×' ? 2 : 2);
    const verdict = r.pass === undefined ? '' : r.pass ? '  ok' : '  MISSED';
    if (r.pass === false) failed++;
    console.log(`${r.name}: ${v} ${r.unit}${r.target ? `  (target ${r.target})` : ''}${verdict}`);
  }
}
console.log(failed ? `\n${failed} figure(s) missed their target` : '\nall figures with a target met it');

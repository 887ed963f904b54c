// `npm run bench [-- --quick] [-- --only core,search] [-- --pages 100000]`: runs the benchmark
// sections and prints one line per figure with its target. Not part of `npm test`. A figure that
// misses its target is marked; a check that fails (`check: true`, e.g. the vault section's link
// comparison) makes the run exit 1.
import { parseArgs } from 'node:util';

export type BenchOptions = { pages: number; quick: boolean; vault?: string };
export type BenchResult = { name: string; value: number; unit: string; target?: string; pass?: boolean; check?: boolean };
type Section = (opts: BenchOptions) => Promise<BenchResult[]>;

const SECTIONS: Record<string, () => Promise<Section>> = {
  core: async () => (await import('./bench/core.ts')).run,
  bundles: async () => (await import('./bench/bundles.ts')).run,
  'export-latency': async () => (await import('./bench/export-latency.ts')).run,
  records: async () => (await import('./bench/records.ts')).run,
  webhooks: async () => (await import('./bench/webhooks.ts')).run,
  search: async () => (await import('./bench/search.ts')).run,
  titles: async () => (await import('./bench/titles.ts')).run,
  relevance: async () => (await import('./bench/relevance.ts')).run,
  doors: async () => (await import('./bench/doors.ts')).run,
  web: async () => (await import('./bench/web.ts')).run,
  moves: async () => (await import('./bench/moves.ts')).run,
  files: async () => (await import('./bench/files.ts')).run,
  ops: async () => (await import('./bench/ops.ts')).run,
  'folder-import': async () => (await import('./bench/folder-import.ts')).run,
  sync: async () => (await import('./bench/sync.ts')).run,
  storage: async () => (await import('./bench/storage.ts')).run,
  replica: async () => (await import('./bench/replica.ts')).run,
  render: async () => (await import('./bench/render.ts')).run,
  changes: async () => (await import('./bench/changes.ts')).run,
  vault: async () => (await import('./bench/vault.ts')).run,
};

const HELP = `npm run bench [-- options]: runs the benchmark sections, one line per figure with its target.

Options:
  --only <a,b>    run these sections only (default: all)
  --quick         smaller loads, for a quick look (figures are rougher)
  --pages <n>     pages of the search section's corpus (default 100000)
  --vault <dir>   the Obsidian help vault's en/ folder for the vault section (default: KSPACE_VAULT, or a clone)
  --help          this text

Sections:
  core        floors (bare node:http, raw SQLite) and kspace PUT/GET over 16 connections, conditional GET,
              peak RSS of the server (its helper is a thread), from source and as the single executable
  bundles     a 10,000-page bundle imported, then the space grown to --pages and exported (with RSS)
  export-latency  GET p50/p99 at rest and while a zip export of --pages pages (quick: 20,000) streams
  records     record writes against plain page writes, record queries over 100k records
  webhooks    webhook delivery throughput and latency
  search      full-text, metadata and link queries on a --pages corpus, against naive floors
  titles      GET /search/titles: a quick switcher's keystroke queries on a --pages corpus
  relevance   nDCG@10, MAP@100, Recall@100, MRR of GET /search on Cranfield, CISI and CACM (not in the repository:
              scripts/bench/relevance.ts says where to put them) against FTS5 bm25() with porter and MiniSearch
  doors       the single executable's cold start and size; an MCP tool call against the HTTP request
  web         the web app: bytes sent, largest contentful paint in headless Chromium, embedded size
  moves       a 1,000-page prefix with 5,000 inbound links moved with one request
  ops         what the request log and the metrics cost PUT throughput
  files       attachments: upload and download over loopback (5 MB and 50 MB), the storage choice's floors
  storage     the data directory of 20,000 pages of 2 KB against their raw content; growth per further
              revision that changes 5 % of a page; reading old revisions
  sync        kspace sync: first sync of a 10,000-note folder both ways, then edits each way while following
  folder-import  kspace import-dir of a 10,000-note vault with wikilinks, against the same vault without links
  replica     a primary, a read replica and the test shipper: replica lag under writes, forwarded writes,
              PUT in SERVICE_CHECKPOINT_MODE=litestream against auto with a long-held read transaction;
              with the real Litestream v0.3.13: RPO, RTO, index rebuild, replica-follow lag at 50 writes/s
  changes     commit to event at SSE clients (p50, p99) with 1,000 open change streams (quick: 200) and 50 writes/s;
              the server's RSS growth for the idle streams
  render      a page with 20 embeds rendered with the render cache cold (p50, p99); adversarial Markdown at the
              page-size cap through POST /render and PUT, and a diff of two pages at the cap, each beside
              GET /healthz sent one after another
  vault       the public Obsidian help vault (not in the repository: --vault, or
              git clone https://github.com/obsidianmd/obsidian-help ~/.cache/kspace-vault/obsidian-help)
              through import-dir, each link compared with an independent model of Obsidian's resolution,
              files attached, the Markdown export read back; a difference fails the run (exit 1)
`;

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${HELP}`);
  process.exit(2);
}

let values: { quick?: boolean; only?: string; pages?: string; vault?: string; help?: boolean };
try {
  ({ values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      pages: { type: 'string', default: '100000' },
      vault: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }));
} catch (e) {
  fail(e instanceof Error ? e.message : String(e));
}
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
const opts: BenchOptions = { quick: values.quick!, pages: Number(values.pages), vault: values.vault };
if (!Number.isInteger(opts.pages) || opts.pages <= 0) fail(`--pages takes a positive whole number, not '${values.pages}'`);
const names = values.only ? values.only.split(',') : Object.keys(SECTIONS);
for (const name of names) if (!SECTIONS[name]) fail(`unknown bench section '${name}'`);
let failed = 0;
let checksFailed = 0;
for (const name of names) {
  const load = SECTIONS[name];
  console.log(`\n## ${name}`);
  for (const r of await (await load())(opts)) {
    const v =
      r.value >= 100 || Number.isInteger(r.value) ? Math.round(r.value).toLocaleString('en') : r.value.toFixed(r.unit === '' ? 3 : 2);
    const verdict = r.pass === undefined ? '' : r.pass ? '  ok' : '  MISSED';
    if (r.pass === false) failed++;
    if (r.pass === false && r.check) checksFailed++;
    console.log(`${r.name}: ${v} ${r.unit}${r.target ? `  (target ${r.target})` : ''}${verdict}`);
  }
}
console.log(failed ? `\n${failed} figure(s) missed their target` : '\nall figures with a target met it');
if (checksFailed) {
  console.log(`${checksFailed} check(s) failed`);
  process.exitCode = 1;
}

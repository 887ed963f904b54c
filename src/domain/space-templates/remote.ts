import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import type { Services } from '../../services.ts';
import { guardedFetch } from '../net/guarded-fetch.ts';
import { parseCatalogIndex, templatesFromFiles, type LoadedTemplate } from './catalog.ts';

// The remote catalog (opt-in, SERVICE_SPACE_TEMPLATES_URL names a root.json). Fetched in the
// background, never while a request waits: https only, every hop through the address guard of
// webhooks (SERVICE_WEBHOOKS_ALLOW_PRIVATE_URLS=1 turns both off) with the connection pinned to
// the checked address, redirects followed by hand and re-checked hop by hop, each file capped
// after decompression. A refresh is all or nothing: the index and every bundle must pass, else
// the last good copy (kept on disk in the data dir) stays in service unchanged.

const MAX_REDIRECTS = 3;
const TIMEOUT_MS = 15_000;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

// 'root.json' and each bundle file name → its text. A Map: file names come from the remote index
// and may be `constructor` or `__proto__`. On disk, an object of the same pairs (own keys only).
type Files = Map<string, string>;
type CacheFile = { url: string; fetchedAt: string; files: Record<string, string> };
type State = {
  templates: LoadedTemplate[];
  fetchedAt: string | null;
  lastError: string | null;
  chain: Promise<unknown>;
  abort: AbortController;
};

const states = new WeakMap<Services, State>();

/** The remote templates now in service (empty when no remote catalog is configured). */
export function remoteTemplates(svc: Services): LoadedTemplate[] {
  return svc.config.spaceTemplates.url ? stateOf(svc).templates : [];
}

/**
 * Fetches the remote catalog and, when every file passes, puts it in service and on disk.
 * Refreshes run one after another; the answer says whether this one was taken.
 */
export function refreshRemoteCatalog(svc: Services): Promise<{ ok: boolean; error?: string }> {
  const s = stateOf(svc);
  const run = s.chain.then(async () => {
    const url = svc.config.spaceTemplates.url;
    if (!url) return { ok: false, error: 'no remote catalog configured' };
    try {
      const files = await fetchCatalogFiles(svc, url, s.abort.signal);
      const templates = templatesFromFiles(files, svc.config.limits, 'remote');
      const fetchedAt = svc.now();
      writeCache(svc, { url, fetchedAt, files: Object.fromEntries(files) });
      Object.assign(s, { templates, fetchedAt, lastError: null });
      svc.log.info('remote space-template catalog refreshed', { url, templates: templates.length });
      return { ok: true };
    } catch (e) {
      const error = describe(e);
      s.lastError = error;
      svc.log.warn('remote space-template catalog refresh failed; the last good copy stays in service', { url, error });
      return { ok: false, error };
    }
  });
  s.chain = run.catch(() => {});
  return run;
}

/** Stops refreshes: aborts the one in flight and waits for it. */
export async function stopRemoteCatalog(svc: Services): Promise<void> {
  const s = states.get(svc);
  if (!s) return;
  s.abort.abort();
  await s.chain;
}

function stateOf(svc: Services): State {
  let s = states.get(svc);
  if (!s) {
    s = { templates: [], fetchedAt: null, lastError: null, chain: Promise.resolve(), abort: new AbortController() };
    states.set(svc, s);
    loadCache(svc, s);
  }
  return s;
}

async function fetchCatalogFiles(svc: Services, url: string, signal: AbortSignal): Promise<Files> {
  const root = await fetchFollowing(svc, new URL(url), signal);
  const files: Files = new Map([['root.json', root.text]]);
  const { entries, issues } = parseCatalogIndex(parseJson('root.json', root.text));
  if (issues.length) throw new Error(`root.json: ${issues.map((i) => `${i.key}: ${i.message}`).join('; ')}`);
  for (const entry of entries) {
    if (files.has(entry.bundle)) continue;
    // Bundle names are plain relative paths, so they resolve beside the index, on its origin.
    files.set(entry.bundle, (await fetchFollowing(svc, new URL(entry.bundle, root.url), signal)).text);
  }
  return files;
}

async function fetchFollowing(svc: Services, start: URL, signal: AbortSignal): Promise<{ text: string; url: URL }> {
  const cfg = svc.config.spaceTemplates;
  const ca = cfg.caFile ? [...tls.rootCertificates, fs.readFileSync(cfg.caFile, 'utf8')] : undefined;
  let url = start;
  for (let hop = 0; ; hop++) {
    if (url.protocol !== 'https:') throw new Error(`refused ${url.href}: the remote catalog is fetched over https only`);
    if (url.username || url.password) throw new Error(`refused ${url.origin}: credentials in the URL`);
    const res = await guardedFetch(url.href, {
      timeoutMs: TIMEOUT_MS,
      maxBytes: cfg.maxBytes,
      allowPrivate: svc.config.webhooks.allowPrivate,
      signal,
      ca,
      headers: { accept: 'application/json', 'accept-encoding': 'gzip' },
    });
    if (REDIRECTS.has(res.status)) {
      const location = res.headers.get('location');
      if (!location) throw new Error(`${url.href} answered ${res.status} without a location`);
      if (hop >= MAX_REDIRECTS) throw new Error(`more than ${MAX_REDIRECTS} redirects from ${start.href}`);
      url = new URL(location, url);
      continue;
    }
    if (res.status !== 200) throw new Error(`${url.href} answered ${res.status}`);
    return { text: res.body.toString('utf8'), url };
  }
}

function parseJson(name: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`${name}: not valid JSON (${(e as Error).message})`);
  }
}

const cachePath = (svc: Services) => path.join(svc.config.dataDir, 'space-templates', 'remote-catalog.json');

function writeCache(svc: Services, cache: CacheFile): void {
  const file = cachePath(svc);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(cache));
  fs.renameSync(tmp, file); // atomic: a crash leaves the old copy or the new one, never half
}

// The copy on disk is served from start-up until the first refresh succeeds; a copy of another
// URL (the setting changed) is not this catalog and is ignored.
function loadCache(svc: Services, s: State): void {
  const url = svc.config.spaceTemplates.url;
  if (!url) return;
  let cache: CacheFile;
  try {
    cache = JSON.parse(fs.readFileSync(cachePath(svc), 'utf8')) as CacheFile;
  } catch {
    return;
  }
  if (cache.url !== url || typeof cache.files !== 'object' || cache.files === null) return;
  try {
    // Own string-valued keys only: nothing is read through the prototype.
    const files: Files = new Map(Object.entries(cache.files).filter((e): e is [string, string] => typeof e[1] === 'string'));
    s.templates = templatesFromFiles(files, svc.config.limits, 'remote');
    s.fetchedAt = cache.fetchedAt;
  } catch (e) {
    svc.log.warn('the cached remote space-template catalog is unusable', { error: describe(e) });
  }
}

function describe(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = e.cause instanceof Error ? `: ${e.cause.message}` : '';
  return `${e.message}${cause}`;
}

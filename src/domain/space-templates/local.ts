import fs from 'node:fs';
import path from 'node:path';
import type { Limits } from '../../config/config.ts';
import type { Logger, Services } from '../../services.ts';
import { readAsset } from '../../assets.ts';
import { loadTemplateBundle, parseCatalogIndex, toLoadedTemplate, type LoadedTemplate } from './catalog.ts';

// The built-in catalog ships as assets under templates/space/ (root.json names every bundle file,
// so a build can embed them all). SERVICE_SPACE_TEMPLATES_PATH names a
// directory with the same layout that replaces it, for sites without outside network access.

const BUILTIN_DIR = 'templates/space';

type ReadFile = (name: string) => Buffer | null;

/** Loads a catalog through `read`; bad entries are logged and left out, the rest are served. */
function readCatalog(read: ReadFile, limits: Limits, log: Logger, label: string): LoadedTemplate[] {
  const raw = read('root.json');
  if (!raw) {
    log.warn('space-template catalog has no root.json', { catalog: label });
    return [];
  }
  let data: unknown;
  try {
    data = JSON.parse(raw.toString('utf8'));
  } catch (e) {
    log.warn('space-template catalog root.json is not JSON', { catalog: label, error: (e as Error).message });
    return [];
  }
  const { entries, issues } = parseCatalogIndex(data);
  if (issues.length) log.warn('space-template catalog entries refused', { catalog: label, issues });
  const out: LoadedTemplate[] = [];
  for (const entry of entries) {
    const bytes = read(entry.bundle);
    if (!bytes) {
      log.warn('space-template bundle missing', { catalog: label, id: entry.id, bundle: entry.bundle });
      continue;
    }
    try {
      out.push(toLoadedTemplate('built-in', entry, loadTemplateBundle(entry, bytes, limits)));
    } catch (e) {
      log.warn('space-template bundle refused', { catalog: label, id: entry.id, error: (e as Error).message });
    }
  }
  return out;
}

const loaded = new WeakMap<Services, LoadedTemplate[]>();

/** The built-in templates (or the SERVICE_SPACE_TEMPLATES_PATH catalog), read once. */
export function localTemplates(svc: Services): LoadedTemplate[] {
  let list = loaded.get(svc);
  if (!list) {
    const dir = svc.config.spaceTemplates.path;
    list = dir
      ? readCatalog((name) => readFileOrNull(path.join(dir, name)), svc.config.limits, svc.log, dir)
      : readCatalog((name) => readAsset(`${BUILTIN_DIR}/${name}`), svc.config.limits, svc.log, 'built-in');
    loaded.set(svc, list);
  }
  return list;
}

function readFileOrNull(file: string): Buffer | null {
  try {
    return fs.readFileSync(file);
  } catch {
    return null;
  }
}

import type { Limits } from '../../config/config.ts';
import type { Metadata } from '../../model.ts';
import { parseTemplateFrontmatter, validateRecord, type RecordType } from '../records/schema.ts';
import { isTemplatePath, parseBundle, type BundleError, type ParsedBundle } from '../bundles/bundle.ts';
import { AppError } from '../errors.ts';
import type { Issue } from '../../model.ts';

// Space-template catalogs (contract: "Space templates, export, import"): a root.json
// `{templates: [{id, name, description, bundle}]}` whose `bundle` names a file beside it in the
// export-bundle format. Pure: reading the files is the caller's business (assets, a directory or
// https), so every source validates the same way.

type TemplateSource = 'built-in' | 'remote' | 'org';

type CatalogEntry = { id: string; name: string; description: string; bundle: string };

/** A template ready to list and to create spaces from. */
export type LoadedTemplate = { source: TemplateSource; id: string; name: string; description: string; pages: number; bundle: ParsedBundle };

export const TEMPLATE_ID = /^[a-z0-9][a-z0-9-]{0,62}$/;
// A relative file name below the index: plain segments, no '.' or '..', no scheme, no query.
const BUNDLE_FILE = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(?:\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;
const MAX_CATALOG_ENTRIES = 200;

const isObject = (x: unknown): x is Record<string, unknown> => x !== null && typeof x === 'object' && !Array.isArray(x);

/**
 * Reads a root.json. Entries with problems are left out and reported as issues (keyed
 * `templates[i].field`); a root that is not `{templates: [...]}` yields no entries at all.
 */
export function parseCatalogIndex(data: unknown): { entries: CatalogEntry[]; issues: Issue[] } {
  if (!isObject(data) || !Array.isArray(data.templates)) {
    return { entries: [], issues: [{ key: 'templates', code: 'type', message: 'a catalog index is {"templates": [...]}' }] };
  }
  const issues: Issue[] = [];
  const entries: CatalogEntry[] = [];
  const ids = new Set<string>();
  if (data.templates.length > MAX_CATALOG_ENTRIES) {
    issues.push({ key: 'templates', code: 'max', message: `a catalog lists at most ${MAX_CATALOG_ENTRIES} templates` });
  }
  data.templates.slice(0, MAX_CATALOG_ENTRIES).forEach((raw: unknown, i: number) => {
    const at = `templates[${i}]`;
    const before = issues.length;
    if (!isObject(raw)) {
      issues.push({ key: at, code: 'type', message: 'an entry is an object {id, name, description, bundle}' });
      return;
    }
    const { id, name, description, bundle } = raw;
    if (typeof id !== 'string' || !TEMPLATE_ID.test(id)) {
      issues.push({
        key: `${at}.id`,
        code: id === undefined ? 'required' : 'format',
        message: 'an id is 1–63 characters of a-z, 0-9 and -',
      });
    } else if (ids.has(id)) {
      issues.push({ key: `${at}.id`, code: 'duplicate', message: `"${id}" is listed more than once` });
    }
    if (typeof name !== 'string' || name.trim() === '' || name.length > 200) {
      issues.push({ key: `${at}.name`, code: name === undefined ? 'required' : 'format', message: 'a name has 1–200 characters' });
    }
    if (description !== undefined && (typeof description !== 'string' || description.length > 4000)) {
      issues.push({ key: `${at}.description`, code: 'format', message: 'a description is a string of at most 4000 characters' });
    }
    if (typeof bundle !== 'string' || !BUNDLE_FILE.test(bundle) || bundle.length > 200) {
      issues.push({
        key: `${at}.bundle`,
        code: bundle === undefined ? 'required' : 'format',
        message: 'bundle is a relative file name beside root.json (no "..")',
      });
    }
    if (issues.length > before) return;
    ids.add(id as string);
    entries.push({
      id: id as string,
      name: (name as string).trim(),
      description: (description as string | undefined) ?? '',
      bundle: bundle as string,
    });
  });
  return { entries, issues };
}

/**
 * Everything an import would refuse, plus record checks against the bundle's own record types:
 * a template must create a space whose every page is accepted. Empty list = good.
 */
export function checkTemplateBundle(bundle: ParsedBundle): BundleError[] {
  const errors = [...bundle.errors];
  const types = new Map<string, RecordType>();
  for (const p of bundle.pages) {
    if (!isTemplatePath(p.path)) continue;
    const name = p.path.slice('templates/'.length);
    const { type, issues } = parseTemplateFrontmatter(name, p.frontmatter);
    if (issues.length) errors.push(schemaError(p.path, issues));
    else if (type) types.set(name, type);
  }
  for (const p of bundle.pages) {
    const stamp = p.metadata.template;
    if (stamp === undefined) continue;
    const type = typeof stamp === 'string' ? types.get(stamp) : undefined;
    if (!type) {
      errors.push({
        path: p.path,
        code: 'validation_failed',
        message: `metadata.template names no record type of this bundle: ${JSON.stringify(stamp)}`,
      });
      continue;
    }
    const { issues } = validateRecord(type, p.metadata as Metadata);
    if (issues.length) errors.push(schemaError(p.path, issues));
  }
  return errors;
}

function schemaError(path: string, issues: Issue[]): BundleError {
  return { path, code: 'validation_failed', message: issues.map((i) => `${i.key}: ${i.message}`).join('; '), issues };
}

/** Decodes, parses and checks one catalog bundle file; throws with the first problems named. */
export function loadTemplateBundle(entry: CatalogEntry, bytes: Buffer | string, limits: Limits): ParsedBundle {
  let data: unknown;
  try {
    data = JSON.parse(typeof bytes === 'string' ? bytes : bytes.toString('utf8'));
  } catch (e) {
    throw new Error(`${entry.bundle}: not valid JSON (${(e as Error).message})`);
  }
  let bundle: ParsedBundle;
  try {
    bundle = parseBundle(data, limits);
  } catch (e) {
    const issues = e instanceof AppError ? (e.issues ?? []) : [];
    throw new Error(`${entry.bundle}: not a bundle (${issues.map((i) => `${i.key}: ${i.message}`).join('; ') || (e as Error).message})`);
  }
  const errors = checkTemplateBundle(bundle);
  if (errors.length) {
    const shown = errors
      .slice(0, 3)
      .map((x) => `${x.path}: ${x.message}`)
      .join('; ');
    throw new Error(`${entry.bundle}: ${errors.length} page(s) refused (${shown})`);
  }
  return bundle;
}

/**
 * A fetched catalog (root.json and the bundle files by name) → its templates; any problem refuses
 * the whole catalog. A Map, not an object: a bundle file may be called `constructor` or
 * `__proto__`, which an object would answer from its prototype.
 */
export function templatesFromFiles(files: ReadonlyMap<string, string>, limits: Limits, source: TemplateSource): LoadedTemplate[] {
  let root: unknown;
  try {
    root = JSON.parse(files.get('root.json') ?? '');
  } catch (e) {
    throw new Error(`root.json: not valid JSON (${(e as Error).message})`);
  }
  const { entries, issues } = parseCatalogIndex(root);
  if (issues.length) throw new Error(`root.json: ${issues.map((i) => `${i.key}: ${i.message}`).join('; ')}`);
  return entries.map((entry) => {
    const text = files.get(entry.bundle);
    if (text === undefined) throw new Error(`${entry.bundle}: missing`);
    return toLoadedTemplate(source, entry, loadTemplateBundle(entry, text, limits));
  });
}

export function toLoadedTemplate(source: TemplateSource, entry: CatalogEntry, bundle: ParsedBundle): LoadedTemplate {
  return { source, id: entry.id, name: entry.name, description: entry.description, pages: bundle.pages.length, bundle };
}

import { parseIsoDate } from '../iso-date.ts';
import type { FieldDef, FieldType, Issue, MetaValue, Metadata, Scalar } from '../../model.ts';

// A record type is the `metadataSchema` in a template page's frontmatter. This module turns that
// frontmatter into a RecordType (with issues when malformed) and checks a record's metadata
// against one. Pure: no I/O, never coerces values.

export type RecordType = {
  name: string;
  description: string;
  defaultPathPrefix: string | null;
  additionalKeys: 'allow' | 'reject';
  fields: FieldDef[];
  metadataDefaults: Metadata;
};

const FIELD_TYPES: readonly FieldType[] = ['string', 'text', 'number', 'boolean', 'date', 'select', 'multiselect', 'list', 'url'];
/** The metadata key holding a record's type name; never declarable, always allowed. */
export const STAMP_KEY = 'template';
const FIELD_KEY = /^[A-Za-z0-9_.-]{1,64}$/;

type Problem = { code: string; message: string };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isScalar(v: unknown): v is Scalar {
  return typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
}

/** A metadata value per the contract: scalar or a flat list of scalars. */
function isMetaValue(v: unknown): v is MetaValue {
  return isScalar(v) || (Array.isArray(v) && v.every(isScalar));
}

const describe = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;

function isEmpty(v: unknown): boolean {
  return v === undefined || v === '' || (Array.isArray(v) && v.length === 0);
}

// Absolute http(s) only; whitespace is refused rather than silently trimmed by the URL parser.
function isHttpUrl(s: string): boolean {
  if (!/^https?:\/\//i.test(s) || /[\s\u0000-\u001f\u007f]/.test(s)) return false;
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/** The first problem of a present value against its field, or null when it conforms. */
function checkValue(field: FieldDef, v: unknown): Problem | null {
  const wrong = (what: string): Problem => ({ code: 'type', message: `must be ${what}, got ${describe(v)}` });
  switch (field.type) {
    case 'string':
    case 'text':
      return typeof v === 'string' ? null : wrong('a string');
    case 'boolean':
      return typeof v === 'boolean' ? null : wrong('a boolean');
    case 'number': {
      if (typeof v !== 'number' || !Number.isFinite(v)) return wrong('a finite number');
      if (field.min !== undefined && v < field.min) return { code: 'min', message: `must be at least ${field.min}` };
      if (field.max !== undefined && v > field.max) return { code: 'max', message: `must be at most ${field.max}` };
      return null;
    }
    case 'date':
      if (typeof v !== 'string') return wrong('an ISO 8601 date string');
      return parseIsoDate(v) === null ? { code: 'format', message: `"${v}" is not an ISO 8601 date or date-time` } : null;
    case 'url':
      if (typeof v !== 'string') return wrong('a URL string');
      return isHttpUrl(v) ? null : { code: 'format', message: 'must be an absolute http(s) URL' };
    case 'select':
      if (typeof v !== 'string') return wrong('a string');
      return (field.options ?? []).includes(v)
        ? null
        : { code: 'option', message: `"${v}" is not one of: ${(field.options ?? []).join(', ')}` };
    case 'multiselect': {
      if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) return wrong('a list of strings');
      const bad = v.filter((x) => !(field.options ?? []).includes(x));
      if (bad.length > 0)
        return { code: 'option', message: `not allowed: ${bad.join(', ')}; options: ${(field.options ?? []).join(', ')}` };
      if (new Set(v).size !== v.length) return { code: 'option', message: 'must not repeat an option' };
      return null;
    }
    case 'list':
      return Array.isArray(v) && v.every(isScalar) ? null : wrong('a list of strings, numbers or booleans');
  }
}

/**
 * Applies field defaults to absent keys (unless `applyDefaults` is false) and checks the result.
 * Issues come in field-declaration order, then undeclared keys in input order.
 */
export function validateRecord(
  type: RecordType,
  metadata: Metadata,
  opts: { applyDefaults?: boolean } = {},
): { metadata: Metadata; issues: Issue[] } {
  const out: Metadata = { ...metadata };
  if (opts.applyDefaults !== false) {
    for (const f of type.fields) {
      if (f.default !== undefined && !Object.hasOwn(out, f.key)) {
        out[f.key] = Array.isArray(f.default) ? [...f.default] : f.default;
      }
    }
  }
  const issues: Issue[] = [];
  const declared = new Set<string>();
  for (const f of type.fields) {
    declared.add(f.key);
    const v = Object.hasOwn(out, f.key) ? out[f.key] : undefined;
    if (isEmpty(v) && f.required) {
      issues.push({ key: f.key, code: 'required', message: 'is required' });
      continue;
    }
    if (v === undefined) continue;
    const p = checkValue(f, v);
    if (p) issues.push({ key: f.key, ...p });
  }
  if (type.additionalKeys === 'reject') {
    for (const k of Object.keys(out)) {
      if (!declared.has(k) && k !== STAMP_KEY) {
        issues.push({ key: k, code: 'undeclared', message: `is not a field of record type "${type.name}"` });
      }
    }
  }
  return { metadata: out, issues };
}

/** Builds one field definition; returns null (with issues) when it cannot be used at all. */
function parseField(raw: unknown, at: string, seen: Set<string>, issues: Issue[]): FieldDef | null {
  const issue = (sub: string, code: string, message: string) => issues.push({ key: sub ? `${at}.${sub}` : at, code, message });
  if (!isObject(raw)) {
    issue('', 'type', `must be an object, got ${describe(raw)}`);
    return null;
  }
  const before = issues.length;
  const key = raw.key;
  if (key === undefined) issue('key', 'required', 'is required');
  else if (typeof key !== 'string' || !FIELD_KEY.test(key)) {
    issue('key', 'format', 'must be 1-64 characters of A-Z, a-z, 0-9, "_", "." or "-"');
  } else if (key === STAMP_KEY) {
    issue('key', 'schema', `"${STAMP_KEY}" is reserved for the record type stamp`);
  } else if (seen.has(key)) {
    issue('key', 'duplicate', `"${key}" is declared more than once`);
  } else seen.add(key);

  const type = raw.type;
  if (type === undefined) issue('type', 'required', 'is required');
  else if (typeof type !== 'string' || !(FIELD_TYPES as readonly string[]).includes(type)) {
    issue('type', 'option', `must be one of: ${FIELD_TYPES.join(', ')}`);
  }
  const ft = typeof type === 'string' && (FIELD_TYPES as readonly string[]).includes(type) ? (type as FieldType) : null;

  if (raw.required !== undefined && typeof raw.required !== 'boolean') issue('required', 'type', 'must be a boolean');
  for (const m of ['label', 'description'] as const) {
    if (raw[m] !== undefined && typeof raw[m] !== 'string') issue(m, 'type', 'must be a string');
  }

  const hasOptions = ft === 'select' || ft === 'multiselect';
  const options = raw.options;
  if (hasOptions) {
    if (options === undefined) issue('options', 'required', `is required for a ${ft} field`);
    else if (!Array.isArray(options)) issue('options', 'type', 'must be a list of strings');
    else if (options.length === 0) issue('options', 'option', 'must not be empty');
    else {
      const opts = new Set<string>();
      options.forEach((o, i) => {
        if (typeof o !== 'string') issue(`options[${i}]`, 'type', 'must be a string');
        else if (opts.has(o)) issue(`options[${i}]`, 'duplicate', `"${o}" is listed more than once`);
        else opts.add(o);
      });
    }
  } else if (options !== undefined && ft !== null) {
    issue('options', 'schema', `only select and multiselect fields take options, not ${ft}`);
  }

  for (const m of ['min', 'max'] as const) {
    const n = raw[m];
    if (n === undefined) continue;
    if (ft !== 'number' && ft !== null) issue(m, 'schema', `only number fields take ${m}, not ${ft}`);
    else if (typeof n !== 'number' || !Number.isFinite(n)) issue(m, 'type', 'must be a finite number');
  }
  if (ft === 'number' && typeof raw.min === 'number' && typeof raw.max === 'number' && raw.min > raw.max) {
    issue('min', 'min', `min ${raw.min} is greater than max ${raw.max}`);
  }

  if (issues.length > before || ft === null || typeof key !== 'string') return null;
  const field: FieldDef = { key, type: ft };
  if (raw.required !== undefined) field.required = raw.required as boolean;
  if (raw.label !== undefined) field.label = raw.label as string;
  if (raw.description !== undefined) field.description = raw.description as string;
  if (hasOptions) field.options = [...(options as string[])];
  if (raw.min !== undefined) field.min = raw.min as number;
  if (raw.max !== undefined) field.max = raw.max as number;

  // The default must pass the same checks a record value would, so it can never create a violation.
  const dflt = raw.default;
  if (dflt !== undefined) {
    const p =
      isEmpty(dflt) && field.required
        ? { code: 'required', message: 'an empty default cannot satisfy a required field' }
        : checkValue(field, dflt);
    if (p) {
      issue('default', p.code, `default ${p.message}`);
      return null;
    }
    field.default = Array.isArray(dflt) ? [...(dflt as Scalar[])] : (dflt as Scalar);
  }
  return field;
}

function parseSchema(raw: unknown, issues: Issue[]): Pick<RecordType, 'additionalKeys' | 'fields'> {
  const result: Pick<RecordType, 'additionalKeys' | 'fields'> = { additionalKeys: 'allow', fields: [] };
  if (!isObject(raw)) {
    issues.push({ key: 'metadataSchema', code: 'type', message: `must be an object, got ${describe(raw)}` });
    return result;
  }
  const ak = raw.additionalKeys;
  if (ak === 'allow' || ak === 'reject') result.additionalKeys = ak;
  else if (ak !== undefined) {
    issues.push({ key: 'metadataSchema.additionalKeys', code: 'option', message: 'must be "allow" or "reject"' });
  }
  const fields = raw.fields;
  if (fields === undefined) return result;
  if (!Array.isArray(fields)) {
    issues.push({ key: 'metadataSchema.fields', code: 'type', message: `must be a list, got ${describe(fields)}` });
    return result;
  }
  const seen = new Set<string>();
  fields.forEach((f, i) => {
    const field = parseField(f, `metadataSchema.fields[${i}]`, seen, issues);
    if (field) result.fields.push(field);
  });
  return result;
}

function parseDefaults(raw: unknown, issues: Issue[]): Metadata {
  const out: Metadata = {};
  if (raw === undefined) return out;
  if (!isObject(raw)) {
    issues.push({ key: 'metadataDefaults', code: 'type', message: `must be an object, got ${describe(raw)}` });
    return out;
  }
  for (const [k, v] of Object.entries(raw)) {
    if (k === STAMP_KEY) {
      issues.push({ key: `metadataDefaults.${k}`, code: 'schema', message: `"${STAMP_KEY}" is reserved for the record type stamp` });
    } else if (!isMetaValue(v)) {
      issues.push({
        key: `metadataDefaults.${k}`,
        code: 'type',
        message: `must be a string, number, boolean, date or a list of those, got ${describe(v)}`,
      });
    } else out[k] = Array.isArray(v) ? [...v] : v;
  }
  return out;
}

/**
 * Reads a template page's frontmatter. `type` is non-null exactly when `metadataSchema` is present
 * (built from its well-formed parts); any issue means the template write must be refused.
 */
export function parseTemplateFrontmatter(name: string, frontmatter: Record<string, unknown>): { type: RecordType | null; issues: Issue[] } {
  const issues: Issue[] = [];
  const desc = frontmatter.description;
  if (desc !== undefined && typeof desc !== 'string') {
    issues.push({ key: 'description', code: 'type', message: `must be a string, got ${describe(desc)}` });
  }
  const prefix = frontmatter.defaultPathPrefix;
  if (prefix !== undefined && prefix !== null && typeof prefix !== 'string') {
    issues.push({ key: 'defaultPathPrefix', code: 'type', message: `must be a string, got ${describe(prefix)}` });
  }
  const metadataDefaults = parseDefaults(frontmatter.metadataDefaults, issues);
  if (frontmatter.metadataSchema === undefined) return { type: null, issues };
  const schema = parseSchema(frontmatter.metadataSchema, issues);
  return {
    type: {
      name,
      description: typeof desc === 'string' ? desc : '',
      defaultPathPrefix: typeof prefix === 'string' ? prefix : null,
      ...schema,
      metadataDefaults,
    },
    issues,
  };
}

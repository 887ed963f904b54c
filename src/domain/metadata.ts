import type { Limits } from '../config/config.ts';
import { parseIsoDate } from './iso-date.ts';

import type { IndexRow, Issue, MetaValue, Metadata, Scalar } from '../model.ts';

const META_KEY = /^[A-Za-z0-9_.-]{1,64}$/;
// Keys that would reach an object's prototype if ever used as a plain property name.
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Checks one metadata value against the contract's value rules. */
export function checkValue(key: string, value: unknown, limits: Limits, field = key): Issue | null {
  if (Array.isArray(value)) {
    if (value.length > limits.listItems) {
      return { key: field, code: 'max', message: `a list holds at most ${limits.listItems} items` };
    }
    for (const item of value) {
      if (Array.isArray(item) || (item !== null && typeof item === 'object')) {
        return { key: field, code: 'type', message: 'list items must be strings, numbers, booleans or dates' };
      }
      const issue = checkScalar(item, limits, field);
      if (issue) return issue;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    return { key: field, code: 'type', message: 'metadata values may not be objects' };
  }
  return checkScalar(value, limits, field);
}

function checkScalar(value: unknown, limits: Limits, field: string): Issue | null {
  if (typeof value === 'string') {
    if (Buffer.byteLength(value) > limits.stringBytes) {
      return { key: field, code: 'max', message: `a string value has at most ${limits.stringBytes} bytes` };
    }
    return null;
  }
  if (typeof value === 'number') {
    return Number.isFinite(value) ? null : { key: field, code: 'type', message: 'numbers must be finite' };
  }
  if (typeof value === 'boolean') return null;
  return { key: field, code: 'type', message: 'values must be strings, numbers, booleans, ISO dates or lists of those' };
}

export function checkKey(key: string, field = key): Issue | null {
  if (FORBIDDEN_KEYS.has(key)) return { key: field, code: 'format', message: `'${key}' is not allowed as a key` };
  if (!META_KEY.test(key)) return { key: field, code: 'format', message: 'keys match [A-Za-z0-9_.-]{1,64}' };
  return null;
}

/** Validates a whole metadata object; `prefix` names where it sits in the request. */
export function checkMetadata(input: unknown, limits: Limits, prefix = 'metadata'): Issue[] {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return [{ key: prefix, code: 'type', message: 'metadata must be an object' }];
  }
  const issues: Issue[] = [];
  const keys = Object.keys(input);
  if (keys.length > limits.metadataKeys) {
    issues.push({ key: prefix, code: 'max', message: `a page has at most ${limits.metadataKeys} metadata keys` });
  }
  let items = 0;
  for (const k of keys) {
    const value = (input as Record<string, unknown>)[k];
    const issue = checkKey(k, `${prefix}.${k}`) ?? checkValue(k, value, limits, `${prefix}.${k}`);
    if (issue) issues.push(issue);
    items += Array.isArray(value) ? value.length : 1;
  }
  // Each value and list item is a row of the metadata index, written with the page: bounded so
  // that one page's write stays cheap whatever its metadata.
  if (items > limits.metadataItems) {
    issues.push({
      key: prefix,
      code: 'max',
      message: `a page's metadata holds at most ${limits.metadataItems} values and list items together (this one: ${items})`,
    });
  }
  return issues;
}

/** Copies validated metadata into a fresh object with sorted keys (stable JSON, no prototype tricks). */
export function normalizeMetadata(input: Record<string, unknown>): Metadata {
  const out: Metadata = {};
  for (const k of Object.keys(input).sort()) out[k] = input[k] as MetaValue;
  return out;
}

/** The metadata index rows of one page: scalars at pos -1, list items at pos 0..n-1. */
export function indexRows(metadata: Metadata): IndexRow[] {
  const rows: IndexRow[] = [];
  for (const [key, value] of Object.entries(metadata)) {
    if (Array.isArray(value)) value.forEach((item, i) => rows.push({ key, pos: i, ...typed(item) }));
    else rows.push({ key, pos: -1, ...typed(value) });
  }
  return rows;
}

/** How a scalar is stored and compared: dates as epoch ms, booleans as 0/1. */
export function typed(value: Scalar): { t: IndexRow['t']; v: string | number } {
  if (typeof value === 'number') return { t: 'n', v: value };
  if (typeof value === 'boolean') return { t: 'b', v: value ? 1 : 0 };
  const ms = parseIsoDate(value);
  return ms === null ? { t: 's', v: value } : { t: 'd', v: ms };
}

export type MetadataPatch = { set?: Record<string, MetaValue | null>; appendUnique?: Record<string, Scalar[]> };

/** Applies a patch: `set` assigns (null removes), `appendUnique` appends items not yet present. */
export function applyPatch(current: Metadata, patch: MetadataPatch): { next: Metadata; changedKeys: string[] } {
  const next: Record<string, MetaValue> = { ...current };
  for (const [k, v] of Object.entries(patch.set ?? {})) {
    if (v === null) delete next[k];
    else next[k] = v;
  }
  for (const [k, items] of Object.entries(patch.appendUnique ?? {})) {
    const existing = next[k];
    const list: Scalar[] = existing === undefined ? [] : Array.isArray(existing) ? [...existing] : [existing];
    for (const item of items) if (!list.some((x) => x === item)) list.push(item);
    next[k] = list;
  }
  const normalized = normalizeMetadata(next);
  return { next: normalized, changedKeys: changedKeysOf(current, normalized) };
}

/** Keys whose value differs between two metadata objects, sorted. */
export function changedKeysOf(before: Metadata, after: Metadata): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((k) => !sameValue(before[k], after[k])).sort();
}

function sameValue(a: MetaValue | undefined, b: MetaValue | undefined): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => x === b[i]);
  return a === b;
}

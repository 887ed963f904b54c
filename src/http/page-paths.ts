// Page paths of any depth. h3's router cannot match a wildcard followed by more segments, so the
// endpoints under `/pages/:space/**:path` are matched here, from their declarations alone:
//
//   /pages/:space/**:path                       the page itself
//   /pages/:space/**:path/metadata              a fixed suffix names a sub-resource
//   /pages/:space/**:path/revisions/:version    a suffix parameter matches when its declared schema accepts it
//
// The longest suffix whose literal segments are equal and whose parameters pass their schemas wins,
// provided at least one segment is left for the page path; no suffix matches → the page itself.
// Segments are percent-decoded one by one after the split, so an encoded `/` is part of the page
// path (where the path rules judge it) and never completes a sub-resource suffix.
import * as v from 'valibot';
import type { AnyEndpoint } from './endpoint.ts';

export const PAGE_PREFIX = '/pages/:space/**:path';

type Part = { literal: string } | { param: string; schema?: v.GenericSchema };
type Suffix = { parts: Part[]; endpoints: AnyEndpoint[] };

type PageMatch = {
  /** Every endpoint declared on the matched resource (one per method). */
  endpoints: AnyEndpoint[];
  params: Record<string, string>;
};

export function isPageEndpoint(e: AnyEndpoint): boolean {
  return e.path === PAGE_PREFIX || e.path.startsWith(`${PAGE_PREFIX}/`);
}

/** The matcher of the page endpoints in `table`, longest suffix first. */
export function pageMatcher(table: AnyEndpoint[]): (segments: string[]) => PageMatch | null {
  const bySuffix = new Map<string, Suffix>();
  for (const e of table.filter(isPageEndpoint)) {
    const rest = e.path.slice(PAGE_PREFIX.length);
    let s = bySuffix.get(rest);
    if (!s) {
      const parts = rest
        .split('/')
        .filter(Boolean)
        .map((p): Part => (p.startsWith(':') ? { param: p.slice(1) } : { literal: p }));
      s = { parts, endpoints: [] };
      bySuffix.set(rest, s);
    }
    s.endpoints.push(e);
  }
  const suffixes = [...bySuffix.values()].sort((a, b) => b.parts.length - a.parts.length);
  for (const s of suffixes) {
    for (const part of s.parts) if ('param' in part) part.schema = s.endpoints[0].params?.entries[part.param];
  }
  // Every page request comes here: the suffixes are compared in place, and the params object is
  // built only for the one that fits.
  return (segments) => {
    const count = segments.length;
    let empty = true;
    for (let i = 1; i < count && empty; i++) empty = segments[i] === '';
    if (count === 0 || empty) return null;
    for (const s of suffixes) {
      const n = s.parts.length;
      const base = count - n; // index of the suffix's first segment; the page path is segments[1..base)
      if (base < 2) continue;
      let fits = true;
      for (let i = 0; i < n && fits; i++) {
        const part = s.parts[i];
        const seg = segments[base + i];
        fits = 'literal' in part ? seg === part.literal : part.schema ? v.is(part.schema, seg) : true;
      }
      if (!fits) continue;
      const params: Record<string, string> = { space: segments[0], path: base === 2 ? segments[1] : segments.slice(1, base).join('/') };
      for (let i = 0; i < n; i++) {
        const part = s.parts[i];
        if ('param' in part) params[part.param] = segments[base + i];
      }
      return { endpoints: s.endpoints, params };
    }
    return null;
  };
}

/** Splits `/pages/<space>/<path…>` into percent-decoded segments (after `/pages`); null when one is malformed. */
export function pageSegments(pathname: string): string[] | null {
  const parts = pathname.split('/').slice(2);
  if (!pathname.includes('%')) return parts;
  try {
    return parts.map((p) => decodeURIComponent(p));
  } catch {
    return null;
  }
}

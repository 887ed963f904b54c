import { AppError, invalid } from '../domain/errors.ts';

/** `limit` 1–200, default 50 (contract: Search limits apply to every list). */
export function readLimit(url: URL, def = 50, max = 200): number {
  const raw = url.searchParams.get('limit');
  if (raw === null || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) throw invalid([{ key: 'limit', code: 'format', message: `limit is a whole number from 1 to ${max}` }]);
  return n;
}

/** Opaque cursors: base64url JSON that only this server reads back. */
export function encodeCursor(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

export function readCursor<T>(url: URL, check: (v: unknown) => v is T): T | null {
  const raw = url.searchParams.get('cursor');
  if (raw === null || raw === '') return null;
  try {
    const v: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (check(v)) return v;
  } catch {
    // fall through to the 400
  }
  throw invalid([{ key: 'cursor', code: 'format', message: 'the cursor is not one this server issued' }]);
}

export const isString = (v: unknown): v is string => typeof v === 'string';
export const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

export function readBool(url: URL, name: string): boolean {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === '' || raw === 'false' || raw === '0') return false;
  if (raw === 'true' || raw === '1') return true;
  throw new AppError('validation_failed', `${name} is true or false`, [{ key: name, code: 'format', message: `${name} is true or false` }]);
}

/** An RFC 8288 `Link` header value for the next page: this request's URL with `cursor` replaced. */
export function nextLink(url: URL, cursor: string): string {
  const q = new URLSearchParams(url.searchParams);
  q.set('cursor', cursor);
  return `<${url.pathname}?${q}>; rel="next"`;
}

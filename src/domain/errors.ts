import type { Issue } from '../model.ts';

// The one error catalogue: every failure a caller can cause has a stable code and status here.
// src/http/respond.ts (problem) turns these into application/problem+json; anything else is a 500.
const CATALOGUE = {
  validation_failed: { status: 400, title: 'The request is not valid' },
  bad_request: { status: 400, title: 'Bad request' },
  invalid_json: { status: 400, title: 'The body is not valid JSON' },
  unauthorized: { status: 401, title: 'Missing or invalid credentials' },
  invalid_credentials: { status: 401, title: 'Wrong name or password' },
  csrf_failed: { status: 403, title: 'Cross-site request refused' },
  forbidden: { status: 403, title: 'Not allowed' },
  quota_exceeded: { status: 403, title: 'Quota reached' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  request_too_slow: { status: 408, title: 'The request arrived too slowly' },
  version_conflict: { status: 409, title: 'The page has changed' },
  conflict: { status: 409, title: 'Conflict' },
  changes_expired: { status: 410, title: 'The changes since then are no longer kept' },
  payload_too_large: { status: 413, title: 'Request too large' },
  unsupported_media_type: { status: 415, title: 'The body must be JSON' },
  range_not_satisfiable: { status: 416, title: 'Range not satisfiable' },
  expectation_failed: { status: 417, title: 'Expectation not supported' },
  too_many_requests: { status: 429, title: 'Too many requests' },
  rate_limited: { status: 429, title: 'Too many attempts' },
  headers_too_large: { status: 431, title: 'Request headers too large' },
  not_configured: { status: 503, title: 'Not configured' },
  not_ready: { status: 503, title: 'Not ready' },
  request_timeout: { status: 503, title: 'The request took too long' },
  primary_unavailable: { status: 503, title: 'The primary cannot be reached' },
  busy: { status: 503, title: 'Busy: try again later' },
} as const;

export type ErrorCode = keyof typeof CATALOGUE;
/** Every stable code (the fuzzer checks each 4xx against this list). */
export const ERROR_CODES = Object.keys(CATALOGUE) as ErrorCode[];

/**
 * Thrown on a replica (SERVICE_ROLE=replica) by a read that would have to write (a caller's
 * personal space made on first use): the request is forwarded to the primary instead (src/front/replica.ts).
 */
export class NeedsPrimary extends Error {}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly title: string;
  readonly issues: Issue[] | undefined;
  readonly extra: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, detail?: string, issues?: Issue[], extra?: Record<string, unknown>) {
    super(detail ?? CATALOGUE[code].title);
    this.code = code;
    this.status = CATALOGUE[code].status;
    this.title = CATALOGUE[code].title;
    this.issues = issues;
    this.extra = extra;
  }
}

export const invalid = (issues: Issue[], detail?: string) =>
  new AppError('validation_failed', detail ?? issues.map((i) => `${i.key}: ${i.message}`).join('; '), issues);

export const invalidField = (key: string, code: string, message: string) => invalid([{ key, code, message }]);

export const notFound = (what: string) => new AppError('not_found', `${what} not found`);
export const forbidden = (detail: string) => new AppError('forbidden', detail);

import { FastResponse } from 'srvx';
import { AppError } from '../domain/errors.ts';
import type { Logger, Services } from '../services.ts';

const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };

// srvx's FastResponse is written straight to the Node response; a global Response would be
// streamed chunk by chunk, at a large cost in throughput (docs/performance.md, Reads).
export function json(data: unknown, status = 200, headers?: Record<string, string>): Response {
  return new FastResponse(JSON.stringify(data), { status, headers: headers ? { ...JSON_TYPE, ...headers } : JSON_TYPE });
}

/** An answer already written as JSON: its text, or its UTF-8 bytes (written as they are). */
export function jsonText(body: string | Uint8Array<ArrayBuffer>): Response {
  return new FastResponse(body, { status: 200, headers: JSON_TYPE });
}

export function text(body: string, contentType: string, headers?: Record<string, string>): Response {
  return new FastResponse(body, { status: 200, headers: { 'content-type': contentType, ...headers } });
}

export function noContent(): Response {
  return new FastResponse(null, { status: 204 });
}

/** Runs a write in the group commit and answers 204 once it has committed. */
export async function noContentAfter(svc: Services, write: () => unknown): Promise<Response> {
  await svc.writes.run(write);
  return noContent();
}

/** Reads the request body, then runs the write with it in the group commit (a body is read before its write joins a batch). */
export async function writeWithBody<B, T>(
  svc: Services,
  body: () => Promise<B>,
  write: (input: B) => T,
  opts?: { alone?: boolean },
): Promise<T> {
  const input = await body();
  return svc.writes.run(() => write(input), opts);
}

/** The RFC 9457 problem+json text of an AppError. */
export function problemBody(err: AppError, instance?: string): string {
  return JSON.stringify({
    type: `https://kspace.dev/problems/${err.code.replaceAll('_', '-')}`,
    title: err.title,
    status: err.status,
    code: err.code,
    detail: err.message,
    ...(instance ? { instance } : {}),
    ...(err.issues ? { issues: err.issues } : {}),
    ...(err.extra ?? {}),
  });
}

/** RFC 9457 problem+json for an AppError; anything else is logged and becomes a bare 500. */
export function problem(err: unknown, log: Logger, instance?: string): Response {
  if (err instanceof AppError) {
    const headers: Record<string, string> = { 'content-type': 'application/problem+json' };
    if (typeof err.extra?.retryAfter === 'number') headers['retry-after'] = String(err.extra.retryAfter);
    return new FastResponse(problemBody(err, instance), { status: err.status, headers });
  }
  log.error('unhandled error', { error: err instanceof Error ? (err.stack ?? err.message) : String(err), instance });
  const body = { type: 'about:blank', title: 'Internal server error', status: 500, code: 'internal_error' };
  return new FastResponse(JSON.stringify(body), { status: 500, headers: { 'content-type': 'application/problem+json' } });
}

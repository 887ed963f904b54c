// What an error answer says, read one way by every client: problem+json (RFC 9457) when it is
// that, else the status line and the start of the text (a proxy's error page, say).
import type { Issue } from '../model.ts';

export type Problem = {
  status: number;
  code: string;
  title: string;
  detail?: string;
  issues: Issue[];
  /** Seconds, from `Retry-After`. */
  retryAfter?: number;
  /** The answer's JSON object as it came (for fields a view reads beyond these). */
  body: Record<string, unknown>;
};

/** The Problem of an answer's status, text and `Retry-After` header. */
export function parseProblem(status: number, text: string, retryAfter?: string | null): Problem {
  let body: Record<string, unknown> = {};
  if (text) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
    } catch {
      const short = text.trim().slice(0, 200);
      if (short) body = { detail: short };
    }
  }
  const after = retryAfter == null || retryAfter === '' ? undefined : Number(retryAfter);
  return problemOf(status, body, after !== undefined && Number.isFinite(after) ? after : undefined);
}

/** The Problem of a status and a problem+json object (also for errors a client finds itself). */
export function problemOf(status: number, body: Record<string, unknown>, retryAfter?: number): Problem {
  const str = (k: string) => (typeof body[k] === 'string' ? (body[k] as string) : undefined);
  return {
    status,
    code: str('code') ?? 'error',
    title: str('title') ?? `Request failed (${status})`,
    detail: str('detail'),
    issues: Array.isArray(body.issues) ? (body.issues as Issue[]) : [],
    retryAfter,
    body,
  };
}

/** The cursor of a `Link: <…?cursor=…>; rel="next"` header (a bare-array answer's next page), else null. */
export function nextCursorOf(link: string | null): string | null {
  const m = /<([^>]*)>\s*;\s*rel="next"/.exec(link ?? '');
  return m ? new URL(m[1], 'http://x').searchParams.get('cursor') : null;
}

// The check that keeps /openapi.json true: with SERVICE_VALIDATE_RESPONSES=1 (the test support
// turns it on) every answer of an endpoint is compared with what the table declares: a declared
// status, and a JSON body its schema accepts. A violation is logged and answered 500, so the test
// that caused it fails.
import * as v from 'valibot';
import type { Logger } from '../services.ts';
import type { AnyEndpoint } from './endpoint.ts';
import { problem } from './respond.ts';

export async function checkResponse(e: AnyEndpoint, res: Response, log: Logger): Promise<Response> {
  const violation = await findViolation(e, res);
  if (!violation) return res;
  return problem(new Error(`response of ${e.method} ${e.path} violates its declaration: ${violation}`), log);
}

async function findViolation(e: AnyEndpoint, res: Response): Promise<string | null> {
  const type = res.headers.get('content-type');
  const answer = e.responses.find((a) => a.status === res.status);
  // The body is read only where it is judged: a JSON answer with a schema, not streamed.
  const judged = res.status < 400 && answer?.schema && !answer.streamed && (type ?? '').includes('json');
  return answerViolation(e, res.status, type, res.body === null ? null : judged ? await res.clone().text() : '');
}

/** What is wrong with an answer (status, content type, body text) against the endpoint's declaration, or null. */
export function answerViolation(e: AnyEndpoint, status: number, contentType: string | null, body: string | null): string | null {
  if (status >= 400) return null; // errors are problem+json, built in one place (respond.ts)
  const answer = e.responses.find((a) => a.status === status);
  if (!answer) return `status ${status} is not declared`;
  if (answer.streamed) return null;
  const type = contentType ?? '';
  // A declared content type without a schema is a body of another kind (Prometheus text, Markdown).
  if (!answer.schema) return body === null || status === 204 || answer.contentType ? null : 'a body where none is declared';
  if (!type.includes('json') || (answer.contentType && !answer.contentType.includes('json'))) return null; // a stream or Markdown
  let data: unknown;
  try {
    data = JSON.parse(body ?? '');
  } catch {
    return 'the body is not JSON';
  }
  const r = v.safeParse(answer.schema, data);
  if (r.success) return null;
  return r.issues
    .slice(0, 5)
    .map((i) => `${i.path?.map((p) => String(p.key)).join('.') || '(root)'}: ${i.message}`)
    .join('; ');
}

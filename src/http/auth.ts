import type { H3Event } from 'h3';
import type { Services } from '../services.ts';
import type { Caller } from '../domain/access.ts';
import { AppError } from '../domain/errors.ts';
import { authenticateKey } from '../domain/principals.ts';
import { notePrincipal } from '../ops/front.ts';

/**
 * The principal behind a request: a Bearer API key, 401 otherwise. (The web app's session
 * cookie joins here with web sign-in; the sessions table is ready for it.)
 */
export function requireCaller(event: H3Event, svc: Services): Caller {
  const header = event.req.headers.get('authorization');
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  const caller = m ? authenticateKey(svc, m[1]) : null;
  if (caller) {
    notePrincipal(event, caller);
    return caller;
  }
  throw new AppError('unauthorized', header ? 'the API key is missing, unknown or revoked' : 'send Authorization: Bearer <API key>');
}

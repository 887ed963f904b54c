import type http from 'node:http';
import type { Socket } from 'node:net';
import { AppError, type ErrorCode } from '../domain/errors.ts';
import { problemBody } from '../http/respond.ts';
import type { Services } from '../services.ts';

// What Node's HTTP server refuses before kspace's handler runs, answered as problem+json like
// every other error: a malformed request line or header, conflicting lengths (400), headers over
// Node's limit (431), a request slower than SERVICE_HEADERS_TIMEOUT_MS or
// SERVICE_REQUEST_TIMEOUT_MS (408), an Expect other than 100-continue (417). And the cap on
// connections open at once from one address (SERVICE_MAX_CONNECTIONS_PER_ADDRESS): a connection
// over it is answered 429 and closed. docs/security.md, "Forwarding through a replica, and what
// reaches the server".

/** A whole HTTP/1.1 answer with a problem+json body, for a socket no ServerResponse owns. */
function rawProblem(code: ErrorCode, detail: string, extra: Record<string, string> = {}): string {
  const err = new AppError(code, detail);
  const body = problemBody(err);
  const head = [
    `HTTP/1.1 ${err.status} ${err.title}`,
    'content-type: application/problem+json',
    `content-length: ${Buffer.byteLength(body)}`,
    'connection: close',
  ];
  for (const [k, v] of Object.entries(extra)) head.push(`${k}: ${v}`);
  return `${head.join('\r\n')}\r\n\r\n${body}`;
}

/** Connections over the cap: each request that still arrives on one is refused (src/front/front.ts). */
export const overCap = new WeakSet<Socket>();

type ParseError = Error & { code?: string; bytesParsed?: number };
type Owned = Socket & { _httpMessage?: { headersSent?: boolean } | null };

/** The answer to a request Node's parser refused, or null when the connection just closes. */
function clientErrorAnswer(err: ParseError): string | null {
  const code = err.code ?? '';
  if (code === 'ECONNRESET' || code === 'EPIPE') return null;
  if (code === 'HPE_HEADER_OVERFLOW') return rawProblem('headers_too_large', "the request line and headers exceed the server's limit");
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return rawProblem(
      'request_too_slow',
      'the request did not arrive within SERVICE_HEADERS_TIMEOUT_MS (headers) or SERVICE_REQUEST_TIMEOUT_MS (whole request)',
    );
  if (code === 'HPE_UNEXPECTED_CONTENT_LENGTH' || code === 'HPE_INVALID_CONTENT_LENGTH' || code === 'HPE_INVALID_TRANSFER_ENCODING') {
    return rawProblem(
      'bad_request',
      "the request's length is ambiguous (Content-Length and Transfer-Encoding, two lengths, or an unknown Transfer-Encoding)",
    );
  }
  return rawProblem('bad_request', `the request is not valid HTTP/1.1 (${code || 'parse error'})`);
}

export function guardConnections(server: http.Server, svc: Services): void {
  const ops = svc.config.ops;
  server.on('clientError', (err: ParseError, socket: Owned) => {
    const answer = clientErrorAnswer(err);
    // A client that hangs up is no error of the server's.
    if (answer === null) svc.log.info('client closed the connection', { code: err.code });
    else svc.log.info('request refused by the HTTP parser', { code: err.code });
    const answering = socket._httpMessage;
    if (answer === null || !socket.writable || (answering && answering.headersSent)) {
      socket.destroy();
      return;
    }
    socket.end(answer);
  });
  // Expect: 100-continue is answered by Node; any other expectation is refused.
  server.on('checkExpectation', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    const body = problemBody(new AppError('expectation_failed', 'only Expect: 100-continue is supported'));
    res
      .writeHead(417, { 'content-type': 'application/problem+json', 'content-length': Buffer.byteLength(body), connection: 'close' })
      .end(body);
  });
  const cap = ops.maxConnectionsPerAddress;
  // Behind a trusted proxy every connection comes from the proxy: the cap is then its job.
  if (cap <= 0 || ops.trustProxy) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const addr = socket.remoteAddress;
    if (!addr) return;
    const n = (open.get(addr) ?? 0) + 1;
    if (n > cap) {
      overCap.add(socket);
      svc.log.warn('connection refused: over SERVICE_MAX_CONNECTIONS_PER_ADDRESS', { cap });
      socket.end(rawProblem('too_many_requests', `more than ${cap} connections open at once from this address`, { 'retry-after': '1' }));
      socket.destroySoon();
      return;
    }
    open.set(addr, n);
    socket.once('close', () => {
      const left = open.get(addr)! - 1;
      if (left > 0) open.set(addr, left);
      else open.delete(addr);
    });
  });
}

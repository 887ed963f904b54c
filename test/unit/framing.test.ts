import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.ts';
import { forwardedFor, forwardedHeaders, framingOf } from '../../src/front/framing.ts';

// The framing a replica reads from a request and sets on what it forwards (src/front/framing.ts).
function request(method: string, raw: string[], peer = '192.0.2.9'): IncomingMessage {
  const headers: Record<string, string> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const k = raw[i].toLowerCase();
    headers[k] = headers[k] === undefined ? raw[i + 1] : `${headers[k]}, ${raw[i + 1]}`;
  }
  return { method, rawHeaders: raw, headers, socket: { remoteAddress: peer } } as unknown as IncomingMessage;
}

describe('framingOf', () => {
  const ok: Array<[string, string[], unknown]> = [
    ['GET', [], { kind: 'none' }],
    ['GET', ['Content-Length', '0'], { kind: 'none' }],
    ['POST', ['Content-Length', '12'], { kind: 'length', length: 12 }],
    ['DELETE', ['Transfer-Encoding', 'chunked'], { kind: 'chunked' }],
    ['TRACE', ['Transfer-Encoding', ' CHUNKED '], { kind: 'chunked' }],
    ['DELETE', [], { kind: 'none' }],
  ];
  it.each(ok)('%s %j → %j', (method, raw, want) => expect(framingOf(request(method, raw))).toEqual(want));

  const refused: Array<[string, string[], string]> = [
    ['POST', ['Content-Length', '3', 'Transfer-Encoding', 'chunked'], 'Transfer-Encoding'],
    ['POST', ['Transfer-Encoding', 'chunked', 'Transfer-Encoding', 'chunked'], 'Transfer-Encoding'],
    ['POST', ['Transfer-Encoding', 'identity, chunked'], 'Transfer-Encoding'],
    ['POST', ['Transfer-Encoding', 'xchunked'], 'Transfer-Encoding'],
    ['POST', ['Content-Length', '3', 'Content-Length', '3'], 'Content-Length'],
    ['POST', ['Content-Length', '0x10'], 'Content-Length'],
    ['GET', ['Content-Length', '5'], 'Content-Length'],
    ['HEAD', ['Transfer-Encoding', 'chunked'], 'Transfer-Encoding'],
  ];
  it.each(refused)('%s %j is refused, naming %s', (method, raw, key) => {
    const r = framingOf(request(method, raw));
    expect(r).toBeInstanceOf(AppError);
    expect((r as AppError).status).toBe(400);
    expect((r as AppError).issues?.[0]).toMatchObject({ key, code: 'framing' });
  });
});

describe('forwardedHeaders', () => {
  it('drops the client framing, hop-by-hop headers and those Connection names, and sets its own', () => {
    const req = request('DELETE', [
      'Transfer-Encoding',
      'chunked',
      'Content-Length',
      '9',
      'Connection',
      'keep-alive, x-secret',
      'X-Secret',
      's',
      'Expect',
      '100-continue',
      'X-Request-Id',
      'spoofed',
      'Authorization',
      'Bearer k',
      'Host',
      'h',
    ]);
    expect(forwardedHeaders(req, { kind: 'chunked' }, '192.0.2.9', 'id-1')).toEqual({
      authorization: 'Bearer k',
      host: 'h',
      'transfer-encoding': 'chunked',
      'x-forwarded-for': '192.0.2.9',
      'x-request-id': 'id-1',
    });
    expect(forwardedHeaders(request('DELETE', []), { kind: 'none' }, undefined, undefined)).toEqual({ 'content-length': '0' });
    expect(forwardedHeaders(request('GET', []), { kind: 'none' }, undefined, undefined)).toEqual({});
    expect(forwardedHeaders(request('PUT', []), { kind: 'length', length: 7 }, undefined, undefined)).toEqual({ 'content-length': '7' });
  });
});

describe('forwardedFor', () => {
  it('ends with the client as this server determined it', () => {
    expect(forwardedFor(request('PUT', []), false)).toBe('192.0.2.9');
    expect(forwardedFor(request('PUT', ['X-Forwarded-For', '10.0.0.1']), false)).toBe('10.0.0.1, 192.0.2.9');
    expect(forwardedFor(request('PUT', ['X-Forwarded-For', '10.0.0.1, 10.0.0.2']), true)).toBe('10.0.0.1, 10.0.0.2');
    expect(forwardedFor(request('PUT', []), true)).toBe('192.0.2.9');
  });
});

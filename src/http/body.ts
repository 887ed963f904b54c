import type { Readable } from 'node:stream';
import * as v from 'valibot';
import { AppError, invalid } from '../domain/errors.ts';
import { toIssue } from '../domain/input-issues.ts';
import { readCapped } from '../read-capped.ts';

/**
 * Reads a JSON request body: 415 unless it is JSON, 413 past `maxBytes` (counted while reading,
 * whatever Content-Length claims), 400 for invalid JSON or nesting deeper than `maxDepth`.
 */
export async function readJson(req: Request, maxBytes: number, maxDepth: number): Promise<unknown> {
  const type = req.headers.get('content-type') ?? '';
  if (!/^application\/([\w.+-]*\+)?json\b/i.test(type)) {
    throw new AppError('unsupported_media_type', 'send the body as application/json');
  }
  const text = await readText(req, maxBytes);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new AppError('invalid_json', `the body is not valid JSON: ${(e as Error).message}`);
  }
  if (depthExceeds(data, maxDepth)) throw new AppError('bad_request', `JSON nested deeper than ${maxDepth} levels`);
  return data;
}

/** How a raw body is read: the 413 to throw past the cap, and a look at each chunk as it arrives (a running hash). */
export type RawOptions = { tooLarge?: () => Error; onChunk?: (chunk: Uint8Array) => void };

export async function readText(req: Request, maxBytes: number): Promise<string> {
  return (await readBytes(req, maxBytes)).toString('utf8');
}

/** The body as bytes: 413 when Content-Length says more than `maxBytes` (before reading) or it grows past it. */
export async function readBytes(req: Request, maxBytes: number, opts: RawOptions = {}): Promise<Buffer> {
  const refuse = opts.tooLarge ?? (() => new AppError('payload_too_large', `the body is limited to ${maxBytes} bytes`));
  const seen = opts.onChunk ?? (() => {});
  const declared = Number(req.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) throw refuse();
  // On Node, read the IncomingMessage itself: a web ReadableStream over it costs more than the write.
  const nodeReq = (req as { runtime?: { node?: { req?: Readable } } }).runtime?.node?.req;
  if (nodeReq) return readNodeBody(nodeReq, maxBytes, refuse, seen);
  if (!req.body) return Buffer.alloc(0);
  return readCapped(req.body.getReader(), maxBytes, refuse, seen);
}

// A body cut short (the client hung up, or the server closed a stalled connection) is the
// client's doing: an AppError, so the request is logged at info with the rest, never as a
// server error with a stack.
const cutShort = () => new AppError('bad_request', 'the connection closed before the whole body arrived');

/**
 * The body of Node's IncomingMessage, by its events. As `for await` over it did, a body past
 * `maxBytes` (or an `onChunk` that throws) rejects and destroys the request (not its connection),
 * and one that ends early (the client went away) rejects. Not `for await`: the async iterator's
 * promises and end-of-stream listeners stay with each request until its answer is written, past
 * young collections, and so feed the full ones (docs/performance.md, Figures behind the code).
 */
function readNodeBody(req: Readable, maxBytes: number, refuse: () => Error, seen: (chunk: Uint8Array) => void): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (req.readableEnded) return resolve(Buffer.alloc(0));
    if (req.destroyed) return reject(cutShort());
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (err: Error | null) => {
      if (settled) return;
      settled = true;
      req.off('data', onData).off('end', onEnd).off('error', onClose).off('close', onClose);
      if (err) reject(err);
      else resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      try {
        if (size > maxBytes) throw refuse();
        seen(chunk);
      } catch (e) {
        settle(e as Error);
        // What `for await` did on leaving early (Node's stream destroyer for a server request): the
        // request is destroyed with its socket detached first, so that the answer (a 413) still
        // goes out on the connection instead of the client seeing it reset.
        (req as unknown as { socket: null }).socket = null;
        req.destroy();
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => settle(null);
    const onClose = () => settle(cutShort());
    req.on('data', onData).on('end', onEnd).on('error', onClose).on('close', onClose);
    req.resume(); // flowing even if something paused it: `for await` read it either way
  });
}

function depthExceeds(value: unknown, max: number): boolean {
  // Iterative, so a hostile 100k-deep array cannot overflow the stack.
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (child !== null && typeof child === 'object') stack.push([child, d + 1]);
    }
  }
  return false;
}

const OBJECT_SCHEMAS = new Set(['object', 'strict_object', 'loose_object', 'object_with_rest']);

/**
 * Parses `data` with a valibot schema; failures become 400 with one issue per field, in words
 * for people (domain/input-issues.ts). A body that must be an object and is not (an array, a
 * string, null) is one issue on `body`: valibot would take an array's indexes for field names.
 */
export function parse<S extends v.GenericSchema>(schema: S, data: unknown): v.InferOutput<S> {
  if (OBJECT_SCHEMAS.has(schema.type) && (data === null || typeof data !== 'object' || Array.isArray(data))) {
    throw invalid([{ key: 'body', code: 'type', message: 'the body must be a JSON object' }]);
  }
  const r = v.safeParse(schema, data);
  if (r.success) return r.output;
  throw invalid(r.issues.map((i) => toIssue(i, schema)));
}

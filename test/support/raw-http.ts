import net from 'node:net';

// Raw HTTP/1.1 over a socket (node:net), for the requests a client library will not send:
// ambiguous framing, pipelining, slow or cut-short bodies, oversized headers.

export type RawResponse = { status: number; headers: Record<string, string>; body: string };
export type RawExchange = { responses: RawResponse[]; text: string; closed: boolean };

/** Parses as many whole HTTP/1.1 responses as `text` holds (Content-Length or chunked bodies). */
export function parseResponses(text: string, closed = false): RawResponse[] {
  const out: RawResponse[] = [];
  let at = 0;
  while (at < text.length) {
    const end = text.indexOf('\r\n\r\n', at);
    if (end < 0) break;
    const lines = text.slice(at, end).split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0])?.[1] ?? NaN);
    const headers: Record<string, string> = {};
    for (const l of lines.slice(1)) {
      const i = l.indexOf(':');
      headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
    }
    let p = end + 4;
    let body = '';
    if (status === 100) {
      at = p;
      continue;
    }
    if (headers['transfer-encoding'] === 'chunked') {
      let done = false;
      while (!done) {
        const le = text.indexOf('\r\n', p);
        if (le < 0) return out;
        const size = parseInt(text.slice(p, le), 16);
        if (text.length < le + 2 + size + 2) return out;
        body += text.slice(le + 2, le + 2 + size);
        p = le + 2 + size + 2;
        if (size === 0) done = true;
      }
    } else if (headers['content-length'] !== undefined) {
      const n = Number(headers['content-length']);
      if (text.length < p + n) return out;
      body = text.slice(p, p + n);
      p += n;
    } else if (status !== 204 && status !== 304) {
      if (!closed) return out;
      body = text.slice(p);
      p = text.length;
    }
    out.push({ status, headers, body });
    at = p;
  }
  return out;
}

export type RawOptions = {
  /** Resolve once this many responses arrived (else when the server closes, or at the timeout). */
  responses?: number;
  timeoutMs?: number;
  /** Sent after the first write, each after `gapMs`. */
  more?: string[];
  gapMs?: number;
};

/** Writes `bytes` (latin1) to the server at `url` and collects what comes back. */
export function rawRequest(url: string, bytes: string, opts: RawOptions = {}): Promise<RawExchange> {
  const { hostname, port } = new URL(url);
  const want = opts.responses ?? 1;
  return new Promise((resolve) => {
    let text = '';
    let closed = false;
    let finished = false;
    const socket = net.connect(Number(port), hostname);
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ responses: parseResponses(text, closed), text, closed });
    };
    const timer = setTimeout(finish, opts.timeoutMs ?? 10_000);
    socket.on('connect', async () => {
      socket.write(bytes, 'latin1');
      for (const m of opts.more ?? []) {
        await new Promise((r) => setTimeout(r, opts.gapMs ?? 50));
        if (!socket.destroyed) socket.write(m, 'latin1');
      }
    });
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
      if (parseResponses(text).length >= want) finish();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      closed = true;
      finish();
    });
  });
}

/** A chunked body of one chunk holding `data`, then the last chunk. */
export function chunked(data: string): string {
  return `${Buffer.byteLength(data, 'latin1').toString(16)}\r\n${data}\r\n0\r\n\r\n`;
}

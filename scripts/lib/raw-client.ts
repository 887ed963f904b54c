// A minimal HTTP/1.1 keep-alive client over one socket, for latency figures: one request at a
// time, responses read by Content-Length. undici's own work (and its JIT and GC) shows up in
// a p99 of 1-2 ms; this keeps the client's share of each round trip small.
//
// The server closes a connection idle for longer than its keep-alive timeout (65 s), which a
// client waiting out another caller's figures can reach: the next request then opens a new
// connection, and a close while a request is pending rejects it instead of leaving it waiting.
import net from 'node:net';

export type RawClient = { get(path: string): Promise<number>; close(): void };

export async function rawClient(port: number, headers: Record<string, string>): Promise<RawClient> {
  const extra = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  let pending: { resolve: (status: number) => void; reject: (e: Error) => void } | null = null;
  let buf: Buffer = Buffer.alloc(0);
  let socket: net.Socket | null = null;
  let closedByUs = false;

  const connect = async (): Promise<net.Socket> => {
    const s = net.connect({ port, host: '127.0.0.1', noDelay: true });
    await new Promise<void>((resolve, reject) => s.once('connect', resolve).once('error', reject));
    buf = Buffer.alloc(0);
    s.on('data', (chunk) => onData(s, chunk));
    s.on('error', (e) => fail(s, e));
    s.on('close', () => fail(s, new Error('connection closed by the server')));
    return s;
  };
  const fail = (s: net.Socket, e: Error) => {
    if (socket !== s) return; // a late 'close' of a connection already given up: not this request's
    socket = null;
    const p = pending;
    pending = null;
    if (p && !closedByUs) p.reject(e);
  };
  const onData = (s: net.Socket, chunk: Buffer) => {
    buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
    const headEnd = buf.indexOf('\r\n\r\n');
    if (headEnd < 0 || !pending) return;
    const head = buf.toString('latin1', 0, headEnd);
    const m = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (!m) {
      // Without a length this client cannot find the next response: the connection is done.
      const p = pending;
      pending = null;
      s.destroy();
      return p.reject(new Error(`no content-length: ${head}`));
    }
    const total = headEnd + 4 + Number(m[1]);
    if (buf.length < total) return;
    const status = Number(head.slice(9, 12));
    buf = buf.subarray(total);
    const p = pending;
    pending = null;
    p.resolve(status);
  };

  socket = await connect();
  return {
    async get(path) {
      const s = socket ?? (socket = await connect());
      return new Promise((resolve, reject) => {
        pending = { resolve, reject };
        s.write(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n${extra}\r\n`);
      });
    },
    close: () => {
      closedByUs = true;
      socket?.destroy();
    },
  };
}

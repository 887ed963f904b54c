import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Received = { path: string; headers: http.IncomingHttpHeaders; body: Buffer; at: number };
export type Reply = { status: number; delayMs?: number; headers?: Record<string, string> };

/** A real webhook receiver on 127.0.0.1 that records every request and answers as told. */
export type Receiver = {
  port: number;
  url(path?: string): string;
  received: Received[];
  /** TCP connections accepted so far. */
  connections(): number;
  /** How to answer the n-th (0-based) request to a path; default 200. */
  reply: (req: Received, n: number) => Reply;
  on(path: string): Received[];
  waitFor(pred: (r: Receiver) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
};

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const perPath = new Map<string, number>();
  let connections = 0;
  const sockets = new Set<import('node:net').Socket>();
  const r: Receiver = {
    port: 0,
    url: (p = '/hook') => `http://127.0.0.1:${r.port}${p}`,
    received,
    connections: () => connections,
    reply: () => ({ status: 200 }),
    on: (p) => received.filter((x) => x.path === p),
    async waitFor(pred, timeoutMs = 15_000) {
      const until = Date.now() + timeoutMs;
      while (!pred(r)) {
        if (Date.now() > until) throw new Error(`receiver: condition not met in ${timeoutMs} ms (${received.length} requests)`);
        await new Promise((res) => setTimeout(res, 20));
      }
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((res) => server.close(() => res()));
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const rec: Received = { path, headers: req.headers, body: Buffer.concat(chunks), at: Date.now() };
      received.push(rec);
      const n = perPath.get(path) ?? 0;
      perPath.set(path, n + 1);
      const reply = r.reply(rec, n);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(reply.status, reply.headers);
        res.end('ok');
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs).unref();
      else send();
    });
  });
  server.on('connection', (s) => {
    connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', () => res()));
  r.port = (server.address() as AddressInfo).port;
  return r;
}

/** Checks both signatures of a received delivery over the exact bytes received. */
export function verifySignatures(secret: string, rec: Received): { service: boolean; standard: boolean } {
  const h = rec.headers;
  const service = `sha256=${createHmac('sha256', secret).update(rec.body).digest('hex')}`;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const signed = Buffer.concat([Buffer.from(`${h['webhook-id']}.${h['webhook-timestamp']}.`), rec.body]);
  const standard = `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
  const same = (a: string, b: unknown) => typeof b === 'string' && a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
  const given = String(h['webhook-signature'] ?? '').split(' ');
  return { service: same(service, h['x-service-signature']), standard: given.some((g) => same(standard, g)) };
}

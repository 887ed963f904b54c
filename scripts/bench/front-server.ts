// A bare node:http server answering a small JSON body the way srvx does (writeHead with a flat
// header array), optionally behind kspace's request front (ids, limits, log line) and metrics.
// `node scripts/bench/front-server.ts bare|front|metrics` prints its port. Used by ops-overhead.ts.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../src/config/config.ts';
import { createFront } from '../../src/front/front.ts';
import { attachMetrics } from '../../src/ops/metrics.ts';
import { createLogger, type Services } from '../../src/services.ts';

const variant = process.argv[2] ?? 'bare';
const body = JSON.stringify({ id: 'p_x', title: 'A page', content: 'x'.repeat(2000), version: 3 });
const inner = (_req: http.IncomingMessage, res: http.ServerResponse) => {
  res.writeHead(200, 'OK', ['content-type', 'application/json; charset=utf-8', 'content-length', String(Buffer.byteLength(body))]);
  res.end(body);
};
const config = loadConfig({}, { SERVICE_LOG_FORMAT: 'json' });
const svc = { config, log: createLogger(false, { format: 'json', level: variant === 'quiet' ? 'warn' : 'info' }) } as unknown as Services;
let handler: (req: http.IncomingMessage, res: http.ServerResponse) => unknown = inner;
if (variant !== 'bare') {
  const front = createFront(svc, inner);
  if (variant === 'metrics') attachMetrics(svc, front);
  handler = front.handler;
}
const server = http.createServer({ keepAliveTimeout: 65_000 }, handler);
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));

// A minimal webhook receiver for the benchmark, run as its own process (like a real receiver,
// it does not share the server's or the load generator's event loop). Reports counts over IPC.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const ids = new Set<string>();
let requests = 0;
let firstAt = 0;
let lastAt = 0;

const server = http.createServer({ keepAliveTimeout: 30_000 }, (req, res) => {
  req.resume();
  req.on('end', () => {
    requests++;
    const now = Date.now();
    if (firstAt === 0) firstAt = now;
    lastAt = now;
    ids.add(String(req.headers['x-service-delivery']));
    res.writeHead(200, { 'content-length': '0' });
    res.end();
  });
});

server.listen(0, '127.0.0.1', () => {
  process.send!({ type: 'ready', port: (server.address() as AddressInfo).port });
});

process.on('message', (m: { type: string }) => {
  if (m.type === 'stats') process.send!({ type: 'stats', requests, unique: ids.size, firstAt, lastAt });
  if (m.type === 'reset') {
    ids.clear();
    requests = 0;
    firstAt = lastAt = 0;
    process.send!({ type: 'reset' });
  }
  if (m.type === 'exit') server.close(() => process.exit(0));
});

// The HTTP floor for files: a bare node:http server that keeps PUT bodies in memory and answers
// GETs with them, so the files bench can say what loopback and its client allow on this machine.
import http from 'node:http';

const port = Number(process.argv[2]);
const store = new Map<string, Buffer>();
http
  .createServer((req, res) => {
    if (req.method === 'PUT') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        store.set(req.url ?? '', Buffer.concat(chunks));
        res.writeHead(201, { 'content-type': 'application/json' });
        res.end('{}');
      });
      return;
    }
    const body = store.get(req.url ?? '') ?? Buffer.alloc(0);
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length });
    res.end(body);
  })
  .listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));

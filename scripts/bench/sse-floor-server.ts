// The idle-stream floor: a bare node:http server that answers every request with an event-stream
// head and one line, then holds the response open (what an idle SSE client costs Node itself).
import http from 'node:http';

const port = Number(process.argv[2]);
http
  .createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    res.write('retry: 1000\n\n');
  })
  .listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));

// The HTTP floor: a bare node:http server answering a small JSON body.
import http from 'node:http';

const port = Number(process.argv[2]);
const body = JSON.stringify({ hello: 'world', version: 1, path: 'a/b', title: 'Hello' });
http
  .createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  })
  .listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));

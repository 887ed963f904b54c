// The page-read floor: a bare node:http server that answers GET /pages/<space>/<path> from a kspace
// data directory with the page's row and kspace's JSON of it (store/pages.ts findPage, pageJson),
// and nothing else: no key, access check, log line or ETag. What any server reading the page from
// SQLite on each request pays; the core bench alternates it with kspace's GET at rest.
import Database from 'better-sqlite3';
import http from 'node:http';
import { pageJson } from '../../src/domain/pages.ts';
import { findPage } from '../../src/store/pages.ts';
import type { SpaceRow } from '../../src/store/spaces.ts';

const [port, dbPath, slug] = [Number(process.argv[2]), process.argv[3], process.argv[4]];
const db = new Database(dbPath, { readonly: true });
db.pragma('cache_size = -8192'); // kspace's own (src/store/db.ts)
const space = db.prepare('SELECT * FROM spaces WHERE slug = ?').get(slug) as SpaceRow;
const prefix = `/pages/${slug}/`;

http
  .createServer((req, res) => {
    const page = req.url?.startsWith(prefix) ? findPage(db, space.id, decodeURIComponent(req.url.slice(prefix.length))) : undefined;
    if (!page) {
      res.writeHead(404);
      res.end();
      return;
    }
    const body = pageJson(space, page);
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  })
  .listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));

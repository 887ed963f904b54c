// The storage choice for attachments, measured (docs/performance.md "Attachments"): the same
// bytes written and read back as content-addressed SQLite blobs in 1 MiB chunks (kspace.db's
// pragmas: WAL, synchronous NORMAL, 4 KiB pages, an 8 MiB cache; reads through a memory-mapped
// connection, after a checkpoint, as the server's are) and as files in a directory (write,
// fsync, rename; readFileSync). No HTTP: only the storage.
import Database from 'better-sqlite3';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const MB = 1024 * 1024;
const CHUNK = MB;

export type StorageFigures = { sqliteWrite: number; sqliteRead: number; fileWrite: number; fileRead: number };

export function measureStorage(size: number, count: number): StorageFigures {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-bench-blobs-'));
  try {
    const db = new Database(path.join(dir, 'k.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('cache_size = -8192');
    db.exec('CREATE TABLE blob_chunks (sha256 TEXT NOT NULL, n INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (sha256, n))');
    const insert = db.prepare('INSERT INTO blob_chunks VALUES (?, ?, ?)');
    const files = Array.from({ length: count }, () => randomBytes(size));
    const shas = files.map((f) => createHash('sha256').update(f).digest('hex'));
    const time = (fn: () => void) => {
      const t0 = performance.now();
      fn();
      return (size * count) / MB / ((performance.now() - t0) / 1000);
    };
    const sqliteWrite = time(() => {
      files.forEach((f, i) =>
        db.transaction(() => {
          for (let o = 0, n = 0; o < f.length; o += CHUNK, n++) insert.run(shas[i], n, f.subarray(o, o + CHUNK));
        })(),
      );
    });
    db.pragma('wal_checkpoint(TRUNCATE)');
    const reader = new Database(path.join(dir, 'k.db'), { readonly: true });
    reader.pragma('mmap_size = 1073741824');
    const one = reader.prepare('SELECT data FROM blob_chunks WHERE sha256 = ? AND n = ?').pluck();
    const sqliteRead = time(() => {
      for (const sha of shas) for (let n = 0; n * CHUNK < size; n++) if (!one.get(sha, n)) throw new Error('missing chunk');
    });
    reader.close();
    db.close();
    const fileWrite = time(() => {
      files.forEach((f, i) => {
        const tmp = path.join(dir, `${shas[i]}.tmp`);
        const fd = fs.openSync(tmp, 'w', 0o600);
        fs.writeSync(fd, f);
        fs.fsyncSync(fd);
        fs.closeSync(fd);
        fs.renameSync(tmp, path.join(dir, shas[i]));
      });
    });
    const fileRead = time(() => {
      for (const sha of shas) fs.readFileSync(path.join(dir, sha));
    });
    return { sqliteWrite, sqliteRead, fileWrite, fileRead };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

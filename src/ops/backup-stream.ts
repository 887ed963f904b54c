import fs from 'node:fs';
import path from 'node:path';
import { FastResponse } from 'srvx';
import type { Services } from '../services.ts';
import { AppError } from '../domain/errors.ts';
import { backupDatabase } from '../store/backup.ts';

// POST /admin/backup: the server copies kspace.db through its own connection, a few hundred
// pages per turn of the event loop (~1 MB, well under a millisecond here), so requests and
// writes go on between steps and the writes made meanwhile reach the copy too. The copy is a
// temporary file in the data directory (0600), streamed out and then removed.
const PAGES_PER_STEP = 256;
let running = false;

export async function streamBackup(svc: Services): Promise<Response> {
  if (running) throw new AppError('conflict', 'a backup is already being made; try again when it is done');
  running = true;
  const file = path.join(svc.config.dataDir, `.backup-${process.pid}-${Date.now()}.db`);
  try {
    await backupDatabase(svc.db, file, PAGES_PER_STEP);
  } catch (e) {
    running = false;
    throw e;
  }
  const size = fs.statSync(file).size;
  const stream = fs.createReadStream(file);
  // Unlinked once open: the descriptor keeps the data until the stream closes, and nothing is
  // left behind if the client goes away or the server stops mid-way.
  await new Promise<void>((resolve, reject) => stream.once('open', () => resolve()).once('error', reject));
  fs.rmSync(file, { force: true });
  running = false;
  const name = `kspace-${new Date().toISOString().replace(/[:.]/g, '-')}.db`;
  return new FastResponse(stream as never, {
    status: 200,
    headers: {
      'content-type': 'application/vnd.sqlite3',
      'content-length': String(size),
      'content-disposition': `attachment; filename="${name}"`,
      'cache-control': 'no-store',
    },
  });
}

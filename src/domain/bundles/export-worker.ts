// A worker thread that makes exports, one at a time (export-thread.ts starts it: from this file in
// a checkout, from its own bundle in the single executable). For each it opens its own read-only
// connection, holds one read transaction over it (a snapshot), makes the bundle or the zip from it
// and posts the bytes to the server's thread in pieces, each piece's memory handed over, never
// copied. It makes a piece only while it holds a credit: the server's thread gives one back for
// every piece its response stream takes, so a slow client slows the export down instead of
// filling memory.
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { closeMappedReaders } from '../../store/db/connection.ts';
import { openReadOnly } from '../../store/db/connection.ts';
import { setNativeBinding } from '../../store/db/native.ts';
import type { Db } from '../../store/db/types.ts';
import type { Chunk } from './snapshot-stream.ts';
import type { ExportJob, ExportWorkerData, FromExportWorker, ToExportWorker } from './export-thread.ts';

/** Bytes are posted once this many are ready (or at the end)... */
const PIECE_BYTES = 128 * 1024;
/** ...in pieces of at most this many (a batch of large pages is one chunk of several MB). */
const MAX_PIECE_BYTES = 512 * 1024;
/** Below the server's own threads: its answers to other requests come first. */
const EXPORT_NICE = 10;

const data = workerData as ExportWorkerData;
const port = parentPort!;
if (data.addon) {
  const mod = { exports: {} as object };
  process.dlopen(mod, data.addon);
  setNativeBinding(mod.exports, data.addon);
}
try {
  os.setPriority(EXPORT_NICE);
} catch {
  // not allowed here: the export runs at the server's priority
}

let credit = 0;
let stopped = false;
let wake: (() => void) | null = null;
port.on('message', (m: ToExportWorker) => {
  if (typeof m === 'object') {
    credit = m.credit;
    stopped = false;
    void run(m);
    return;
  }
  if (m === 'stop') stopped = true;
  else credit++;
  wake?.();
  wake = null;
});

const post = (m: FromExportWorker, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);

/**
 * Posts the bytes of `parts` in pieces of at most MAX_PIECE_BYTES, each once a credit allows it;
 * false when the server's thread asked to stop.
 */
async function send(parts: Uint8Array[], size: number): Promise<boolean> {
  let part = 0;
  let offset = 0;
  for (let left = size; left > 0; ) {
    while (credit === 0 && !stopped) await new Promise<void>((resolve) => (wake = resolve));
    if (stopped) return false;
    credit--;
    // A buffer of its own (not a slice of Node's shared pool), so that it can be handed over.
    const piece = new Uint8Array(Math.min(left, MAX_PIECE_BYTES));
    for (let at = 0; at < piece.length; ) {
      const p = parts[part];
      const n = Math.min(p.length - offset, piece.length - at);
      piece.set(p.subarray(offset, offset + n), at);
      at += n;
      offset += n;
      if (offset === p.length) {
        part++;
        offset = 0;
      }
    }
    left -= piece.length;
    post({ chunk: piece }, [piece.buffer]);
  }
  return true;
}

/** Ends the read transaction and closes the connections: before the job's last message, which tells the server's thread that the snapshot is gone. */
function close(reader: Db | null): void {
  if (!reader) return;
  closeMappedReaders(reader);
  if (reader.open) reader.close();
}

/** Makes one export; its last message is `end`, `error` or `stopped`, after its snapshot is closed. */
async function run(job: ExportJob): Promise<void> {
  let reader: Db | null = null;
  let last: FromExportWorker = { stopped: true };
  try {
    reader = openReadOnly(job.dbFile);
    reader.exec('BEGIN');
    // Each format's modules load with its first export: the zip's (markdown-it, yaml) are four
    // times the JSON's, and a worker that makes only JSON starts without them.
    const chunks: Iterator<Chunk> =
      job.format === 'zip'
        ? (await import('./zip-export.ts')).zipChunks(job.now, reader, job.caller, job.space, Infinity)
        : (await import('./export.ts')).generateBundleChunks(reader, job.caller, job.space, { exportedAt: job.now });
    let parts: Uint8Array[] = [];
    let size = 0;
    for (let next = chunks.next(); !next.done; next = chunks.next()) {
      if (stopped) return;
      const c = next.value;
      if (c.length === 0) continue;
      const bytes = typeof c === 'string' ? Buffer.from(c) : c;
      parts.push(bytes);
      size += bytes.length;
      if (size < PIECE_BYTES) continue;
      if (!(await send(parts, size))) return;
      parts = [];
      size = 0;
    }
    if (size > 0 && !(await send(parts, size))) return;
    last = { end: true };
  } catch (e) {
    last = { error: e instanceof Error ? e.message : String(e) };
  } finally {
    close(reader);
    post(last);
  }
}

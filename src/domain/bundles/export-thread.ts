// Exports made on worker threads (export-worker.ts), each over its own snapshot connection: the
// server's event loop only hands a worker's pieces to the response, so other requests keep their
// usual latency during a large export (docs/performance.md, "Exports beside other requests").
// A worker's heap is its own too: collecting an export's garbage never pauses the server's thread.
//
// At most MAX_WORKER_EXPORTS run at once, one export a worker; a worker waits IDLE_MS for the
// next export before it ends (starting one loads its modules: 0.1–2 s of CPU on a loaded
// machine). An export beyond them, or where no thread can start, is made on the event loop in
// bounded steps instead (snapshot-stream.ts).
import sea from 'node:sea';
import { Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { assetPath } from '../../assets.ts';
import type { Caller } from '../../model.ts';
import type { Services } from '../../services.ts';
import { snapshotElsewhere } from '../../store/db/connection.ts';
import { nativeAddonFile } from '../../store/db/native.ts';
import type { SpaceRow } from '../../store/spaces.ts';

/** The SEA asset holding the worker's bundle (scripts/build-binary.ts). */
const EXPORT_BUNDLE_ASSET = 'export-worker.cjs';
export const MAX_WORKER_EXPORTS = 2;
const IDLE_MS = 30_000;
/** Pieces a worker may post ahead of what the response has taken (each up to 512 KiB: export-worker.ts). */
const AHEAD = 2;
/** A worker asked to stop that has not stopped by then is ended by force. */
const STOP_WAIT_MS = 2000;

type ExportFormat = 'zip' | 'json';
/** What a worker is started with. */
export type ExportWorkerData = { /** The SQLite addon the single executable loaded. */ addon?: string };
/** One export. */
export type ExportJob = { dbFile: string; format: ExportFormat; caller: Caller; space: SpaceRow; now: string; credit: number };
/** A job; "more": one piece more may be posted; "stop": the response is gone. */
export type ToExportWorker = ExportJob | 'more' | 'stop';
/** A piece of the body, or the job's last message: its end, its failure, or its stop. */
export type FromExportWorker = { chunk: Uint8Array } | { end: true } | { error: string } | { stopped: true };

type Slot = {
  worker: Worker;
  /** The running export's handlers; null while the worker waits for one. */
  job: { message: (m: FromExportWorker) => void; gone: (why: string) => void } | null;
  idle?: NodeJS.Timeout;
};
const slots = new Set<Slot>();
let unavailable = false;

function startWorker(): Slot | null {
  const workerData: ExportWorkerData = { addon: nativeAddonFile() };
  let worker: Worker;
  try {
    worker = sea.isSea()
      ? new Worker(sea.getAsset(EXPORT_BUNDLE_ASSET, 'utf8'), { eval: true, workerData })
      : new Worker(assetPath('src/domain/bundles/export-worker.ts'), { workerData });
  } catch {
    unavailable = true; // no threads here: exports run on the event loop
    return null;
  }
  worker.unref();
  const slot: Slot = { worker, job: null };
  let failure = '';
  worker.on('message', (m: FromExportWorker) => slot.job?.message(m));
  worker.on('error', (e) => (failure = e.message));
  worker.on('exit', (code) => {
    slots.delete(slot);
    clearTimeout(slot.idle);
    slot.job?.gone(failure || `the export worker exited (${code})`);
    slot.job = null;
  });
  slots.add(slot);
  return slot;
}

/** A worker that takes the next export: a waiting one, or a new one within the cap. */
function takeWorker(): Slot | null {
  for (const s of slots) {
    if (s.job) continue;
    clearTimeout(s.idle);
    return s;
  }
  return unavailable || slots.size >= MAX_WORKER_EXPORTS ? null : startWorker();
}

function letWait(slot: Slot): void {
  slot.job = null;
  slot.idle = setTimeout(() => void slot.worker.terminate(), IDLE_MS);
  slot.idle.unref();
}

/**
 * The export as a Node stream made by a worker thread, resolved once its first bytes are there
 * (a failure before them rejects: the route answers problem+json); null when no worker may run it.
 */
export function openWorkerExport(
  svc: Services,
  what: string,
  format: ExportFormat,
  caller: Caller,
  space: SpaceRow,
): Promise<Readable> | null {
  const slot = takeWorker();
  if (!slot) return null;
  const { worker } = slot;
  // Its snapshot counts as open until the worker says it has closed it, or has ended (openSnapshotCount).
  const released = snapshotElsewhere();
  let killer: NodeJS.Timeout | undefined;
  let over = false; // the job's last message came (or the worker ended)
  const stop = () => {
    if (over || killer) return;
    worker.postMessage('stop' satisfies ToExportWorker);
    killer = setTimeout(() => void worker.terminate(), STOP_WAIT_MS);
  };

  const queue: Uint8Array[] = [];
  let wanted = false;
  let ended = false;
  let started = false;
  const stream = new Readable({
    highWaterMark: 256 * 1024,
    read() {
      wanted = true;
      flush();
    },
    destroy(err, callback) {
      stop();
      callback(err);
    },
  });
  /** Hands queued pieces to the stream while it wants them, a credit back to the worker for each. */
  function flush(): void {
    while (wanted && queue.length > 0) {
      if (!over) worker.postMessage('more' satisfies ToExportWorker);
      const c = queue.shift()!;
      wanted = stream.push(Buffer.from(c.buffer, c.byteOffset, c.byteLength));
    }
    if (wanted && ended && queue.length === 0) {
      wanted = false;
      stream.push(null);
    }
  }

  return new Promise<Readable>((resolve, reject) => {
    const begin = () => {
      if (started) return;
      started = true;
      resolve(stream);
    };
    const fail = (message: string) => {
      const e = new Error(message);
      if (!started) return reject(e);
      if (stream.destroyed) return;
      // Headers are out already: aborting the response is how the client learns of it.
      svc.log.error(`${what} failed`, { space: space.slug, error: message });
      stream.destroy(e);
    };
    /** The job is over: the snapshot is closed, the worker takes the next export (or is gone). */
    const finish = (workerGone: boolean) => {
      over = true;
      clearTimeout(killer);
      released();
      if (!workerGone) letWait(slot);
    };
    slot.job = {
      message: (m) => {
        if ('chunk' in m) {
          queue.push(m.chunk);
          begin();
          flush();
          return;
        }
        finish(false);
        if ('end' in m) {
          ended = true;
          begin();
          flush();
        } else if ('error' in m) fail(m.error);
        else fail('the export was stopped');
      },
      gone: (why) => {
        finish(true);
        if (!ended) fail(why);
      },
    };
    worker.postMessage({ dbFile: svc.db.name, format, caller, space, now: svc.now(), credit: AHEAD } satisfies ToExportWorker);
  });
}

/** How many export worker threads there are, and how many of them are making an export now (tests). */
export function exportWorkers(): { threads: number; busy: number } {
  let busy = 0;
  for (const s of slots) if (s.job) busy++;
  return { threads: slots.size, busy };
}

/** Ends every export worker (shutdown, tests); exports still running are aborted. */
export async function stopExportWorkers(): Promise<void> {
  await Promise.all([...slots].map((s) => s.worker.terminate()));
}

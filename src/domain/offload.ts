// Work that may take long on hostile input (rendering Markdown, diffing revisions, reading the
// links of a large page before its write) runs on a worker thread, so the event loop keeps
// answering meanwhile; each job has a deadline, past which the worker is ended (a pure function
// cannot be stopped any other way) and the caller gets null and answers with its bounded fallback.
// One worker, jobs in turn: the machine's other core is the server's. The thread runs at a lower
// priority (Linux: a thread has its own nice value).
// From this folder's offload-worker.ts in a checkout, from its own bundle in the single executable.
import sea from 'node:sea';
import { Worker } from 'node:worker_threads';
import { assetPath } from '../assets.ts';
import type { OffloadJob, OffloadResult } from './offload-worker.ts';

/** The SEA asset holding the worker's bundle (scripts/build-binary.ts). */
const OFFLOAD_BUNDLE_ASSET = 'offload-worker.cjs';
/** Jobs waiting beyond this many are refused at once (null): the fallback answers them. */
const MAX_QUEUED = 32;

type Pending = { job: OffloadJob; transfer: ArrayBuffer[]; resolve: (r: OffloadResult | null) => void; timer: NodeJS.Timeout };

let worker: Worker | null = null;
/** The worker has loaded its modules and takes jobs. */
let ready = false;
let failed = false;
let running: Pending | null = null;
const queue: Pending[] = [];

/**
 * Runs `job` on the worker; null when it did not finish within `deadlineMs` (waiting and starting
 * the worker included), or no worker could run it. `transfer`: ArrayBuffers of the job handed to
 * the worker rather than copied (unusable here once the job is sent).
 */
export function offload<J extends OffloadJob>(
  job: J,
  deadlineMs: number,
  transfer: ArrayBuffer[] = [],
): Promise<Extract<OffloadResult, { kind: J['kind'] }> | null> {
  return new Promise((resolve) => {
    if (failed || queue.length >= MAX_QUEUED) return resolve(null);
    const p: Pending = { job, transfer, resolve: resolve as Pending['resolve'], timer: setTimeout(() => expire(p), deadlineMs) };
    queue.push(p);
    next();
  });
}

function expire(p: Pending): void {
  const i = queue.indexOf(p);
  if (i >= 0) queue.splice(i, 1);
  else if (running === p) {
    // Still running: the worker is ended with the job (a pure function cannot be stopped any
    // other way), and a new one starts at once for the next job.
    running = null;
    void worker?.terminate();
    worker = null;
    ready = false;
    start();
  } else return;
  p.resolve(null);
  next();
}

function next(): void {
  if (running || queue.length === 0) return;
  const w = worker ?? start();
  if (!w) {
    for (const p of queue.splice(0)) settle(p, null);
    return;
  }
  if (!ready) return; // its 'ready' message calls next()
  running = queue.shift()!;
  w.postMessage(running.job, running.transfer);
}

function settle(p: Pending, result: OffloadResult | null): void {
  clearTimeout(p.timer);
  p.resolve(result);
}

function start(): Worker | null {
  try {
    const w = sea.isSea()
      ? new Worker(sea.getAsset(OFFLOAD_BUNDLE_ASSET, 'utf8'), { eval: true })
      : new Worker(assetPath('src/domain/offload-worker.ts'));
    w.unref();
    w.on('message', (result: OffloadResult | 'ready') => {
      if (worker !== w) return;
      if (result === 'ready') {
        ready = true;
      } else if (running) {
        const done = running;
        running = null;
        settle(done, result);
      }
      next();
    });
    w.on('error', () => {
      if (worker !== w) return;
      worker = null;
      ready = false;
      if (running) settle(running, null);
      running = null;
      next();
    });
    worker = w;
    return w;
  } catch {
    failed = true; // no threads here: callers answer with their fallback
    return null;
  }
}

/** Starts the worker if none runs, so that a first large job finds it ready (its deadline counts the start). */
export function warmOffload(): void {
  if (!worker && !failed) start();
}

/** Ends the worker (tests, shutdown); the next job starts a new one. */
export async function stopOffload(): Promise<void> {
  const w = worker;
  worker = null;
  ready = false;
  if (running) settle(running, null);
  running = null;
  for (const p of queue.splice(0)) settle(p, null);
  await w?.terminate();
}

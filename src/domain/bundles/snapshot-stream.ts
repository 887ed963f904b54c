import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Services } from '../../services.ts';
import { closeSnapshot, openSnapshot } from '../../store/db/connection.ts';
import type { Db } from '../../store/db/types.ts';
import type { SpaceRow } from '../../store/spaces.ts';

// An export is made in steps: each step runs the export's generator for at most STEP_MS, then
// hands the event loop back (setImmediate, so pending I/O, and with it every other request, is
// served between two steps). A generator yields an empty chunk where it may be paused with
// nothing to hand on yet, so no step is held longer than one piece of its work.

/** How long one step may hold the event loop. */
const STEP_MS = 4;
/** A step hands on what it has once it holds this many bytes. */
const STEP_BYTES = 64 * 1024;

/** What an export's generator yields: a piece of the body, or an empty one at a pause point. */
export type Chunk = string | Uint8Array;

/**
 * An export as a Node stream over its own snapshot connection: consistent as of its first read,
 * pulled only as fast as the client reads (backpressure), made in bounded steps, the snapshot
 * closed on end or abort. `chunks` makes the body from the snapshot.
 *
 * It resolves once the first bytes are ready: a failure before them (the snapshot cannot open,
 * the first batch cannot be read) rejects, so the route answers problem+json instead of a
 * response whose headers are out. A failure after them aborts the response.
 */
export async function openSnapshotStream(
  svc: Services,
  what: string,
  space: SpaceRow,
  chunks: (reader: Db) => Iterator<Chunk>,
): Promise<Readable> {
  const reader = openSnapshot(svc.db);
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    closeSnapshot(reader);
  };
  let it: Iterator<Chunk>;
  let first: Buffer | null;
  try {
    it = chunks(reader);
    first = await step();
  } catch (e) {
    close();
    throw e;
  }

  /** The next bytes of the body (null at its end), made in steps of at most STEP_MS each. */
  async function step(): Promise<Buffer | null> {
    const parts: Buffer[] = [];
    let size = 0;
    for (;;) {
      const deadline = performance.now() + STEP_MS;
      while (performance.now() < deadline) {
        if (closed) return null;
        const next = it.next();
        if (next.done) {
          close();
          return parts.length ? Buffer.concat(parts) : null;
        }
        if (next.value.length === 0) continue;
        const b =
          typeof next.value === 'string'
            ? Buffer.from(next.value)
            : Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength);
        parts.push(b);
        size += b.length;
        if (size >= STEP_BYTES) return Buffer.concat(parts);
      }
      if (parts.length) return Buffer.concat(parts);
      await nextTurn();
    }
  }

  let busy = false;
  return new Readable({
    highWaterMark: 256 * 1024,
    read() {
      if (busy) return;
      busy = true;
      const pending = first;
      first = null;
      // Every step after the first starts on a later turn of the event loop.
      (pending ? Promise.resolve(pending) : nextTurn().then(step)).then(
        (chunk) => {
          busy = false;
          if (!this.destroyed) this.push(chunk);
        },
        (e: unknown) => {
          busy = false;
          close();
          // Headers are out already: aborting the response is how the client learns of it.
          svc.log.error(`${what} failed`, { space: space.slug, error: (e as Error).message });
          this.destroy(e as Error);
        },
      );
    },
    destroy(err, callback) {
      close();
      callback(err);
    },
  });
}

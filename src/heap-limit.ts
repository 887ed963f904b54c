// How far V8 lets a thread's old generation grow. After each full collection V8 sets the next
// limit from what survived it: up to 4× by default, 1.3× with --heap-growing-percent=30
// (docs/performance.md, Memory). The limit is computed at a full collection and nowhere else, so a
// flag set later changes nothing until the next one, and under a steady load that next one can
// be far away: from source the server's only full collection came 0.4 s after start, before the
// flag was set, and its old generation then grew from 15 to 31 MB without another (core load, PUT
// and GET of 20,000 pages, --trace-gc). So the flag is set and then one full collection is run.

// Not on the command line: a V8 flag that is not at its default changes V8's flag hash, and
// Node's built-in modules come with a code cache that V8 takes only under the hash it was made
// with. On the command line it made every start compile node:http, undici, child_process,
// crypto... from source: the executable's cold start ~60 ms longer (docs/performance.md, Cold
// start). Set a second after start, once they are loaded.
const HEAP_GROWING_FLAG = '--heap-growing-percent=30';

/**
 * Sets the heap-growing flag (process-wide) and collects this thread's heap once, so that V8
 * sets its old generation's limit under the flag. A one-off pause: 2–15 ms at 20–30 MB of heap.
 */
export function tightenHeapLimit(): void {
  const v8 = process.getBuiltinModule('node:v8'); // loaded here, not at start
  v8.setFlagsFromString(HEAP_GROWING_FLAG);
  // `gc` is given to a context made while --expose-gc is set, and to no other: the flag is
  // process-wide, so it is set back at once and nothing else in the process sees a `gc`.
  v8.setFlagsFromString('--expose-gc');
  let gc: unknown;
  try {
    gc = process.getBuiltinModule('node:vm').runInNewContext('globalThis.gc');
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
  if (typeof gc === 'function') gc();
}

// V8's allocation-site pretenuring: when most objects from one allocation site (one object literal,
// one constructor call in one function) outlive a young-generation collection, V8 allocates that
// site's later objects in the old generation directly. In the core bench's PUT and GET loads it
// sometimes decided so for sites of the request path (4 of 8 runs at 20,000 pages), and from then
// on every GET left its objects to the full collections (all three rounds of a run: the decision
// stays). Measured (--trace-gc, 40,000 GETs a round, three rounds a run, 2026-11-27): runs that
// took the decision had 15–17 full collections a round and 290–440 ms of young-generation pauses,
// GET p99 7.4–17 ms; the others, and all nine with this flag, 2–3 and 38–70 ms, p99 3.0–6.0 ms.
// PUTs were even (8–9 full collections per 20,000 either way). The search bench's short PUT and GET
// loads over undici, eight alternating pairs with and without it: throughput even (medians 1,754 /
// 1,739 writes/s, 7,411 / 7,556 req/s), p99 ~2 ms higher with it (PUT 26.6 / 24.2, GET 11.4 / 10.1
// ms). Set with the heap-growing flag, for the same reason: on the command line it changes V8's
// flag hash.
const NO_PRETENURING_FLAG = '--no-allocation-site-pretenuring';

/** Turns V8's allocation-site pretenuring off, process-wide. */
export function stopPretenuring(): void {
  process.getBuiltinModule('node:v8').setFlagsFromString(NO_PRETENURING_FLAG);
}

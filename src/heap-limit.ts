// How far V8 lets a thread's old generation grow. After each full collection V8 sets the next
// limit from what survived it: up to 4× by default, much less with --heap-growing-percent=30
// (docs/performance.md, Memory). The limit is computed at a full collection and nowhere else, so a
// flag set later changes nothing until the next one, and under a steady load that next one can
// be far away (the server's first full collection may come before the flag is set). So the flag
// is set and then one full collection is run.

// Not on the command line: a V8 flag that is not at its default changes V8's flag hash, and
// Node's built-in modules come with a code cache that V8 takes only under the hash it was made
// with; on the command line it makes every start compile node:http, undici, crypto… from source
// (docs/performance.md, Cold start). Set a second after start, once they are loaded.
const HEAP_GROWING_FLAG = '--heap-growing-percent=30';

/**
 * Sets the heap-growing flag (process-wide) and collects this thread's heap once, so that V8
 * sets its old generation's limit under the flag: a one-off pause of a few milliseconds.
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
// site's later objects in the old generation directly. Under a steady GET load it can decide so
// for sites of the request path, and the decision stays: from then on every GET leaves its objects
// to the full collections, and the GET p99 doubles or worse (docs/performance.md, Tail latency).
// Set with the heap-growing flag, for the same reason: on the command line it changes V8's flag hash.
const NO_PRETENURING_FLAG = '--no-allocation-site-pretenuring';

/** Turns V8's allocation-site pretenuring off, process-wide. */
export function stopPretenuring(): void {
  process.getBuiltinModule('node:v8').setFlagsFromString(NO_PRETENURING_FLAG);
}

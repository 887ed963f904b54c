import zlib from 'node:zlib';

// How a revision's frontmatter, metadata and content are stored (schema version 10). The newest
// revision's are the page row's (pages), stored once. Every older one is stored in the row of the
// revision after it (`revisions.prev`) as a reverse delta against that newer state: the common
// start and end of the two are left out, and what is left of the older state is compressed with
// raw deflate primed with what is left of the newer one (a dictionary), so text the two share
// costs a few bytes a match: a small edit stores a small fraction of a copy (docs/performance.md).
// Every FULL_EVERY versions the older state is stored whole (compressed alone), so reading an old
// revision decodes at most FULL_EVERY - 1 deltas back from the nearest whole state above it.

export type StoredState = { frontmatter: string; metadata: string; content: string };

const FULL_EVERY = 8;

/** Whether the row of the version after `version` stores `version`'s state whole (no delta). */
export function storedWhole(version: number): boolean {
  return version % FULL_EVERY === 0;
}

/** The lowest version above `version` whose row holds a whole state: reading `version` needs rows up to it. */
export function wholeAbove(version: number): number {
  return Math.ceil(version / FULL_EVERY) * FULL_EVERY + 1;
}

const SAME = 0; // the older state equals the newer one (a title-only or ACL-free rewrite)
const DELTA = 1; // varint start, varint end, deflateRaw(older middle, dictionary = newer middle)
const WHOLE = 2; // deflateRaw(older state)
const RAW = 3; // the older state's bytes as they are (compression did not pay)
const DELTA_RAW = 4; // varint start, varint end, the older middle as it is (small: no zlib call either way)

// A middle up to this size is stored as it is: a zlib call has a fixed cost whatever the size,
// and a typo fix or a metadata change leaves a middle of a few bytes.
const RAW_MIDDLE = 64;

/** The state as bytes: varint length of frontmatter, frontmatter, varint length of metadata, metadata, content (UTF-8). */
export function serializeState(s: StoredState): Buffer {
  return serializeStateBytes({
    frontmatter: Buffer.from(s.frontmatter, 'utf8'),
    metadata: Buffer.from(s.metadata, 'utf8'),
    content: Buffer.from(s.content, 'utf8'),
  });
}

/** A state's fields as their UTF-8 bytes (as the page row holds them, read as BLOBs). */
export type StoredStateBytes = { frontmatter: Uint8Array; metadata: Uint8Array; content: Uint8Array };

/** serializeState of a state given as bytes (no string made of them). */
export function serializeStateBytes(s: StoredStateBytes): Buffer {
  const head = Buffer.from(varint(s.frontmatter.length));
  const mid = Buffer.from(varint(s.metadata.length));
  return Buffer.concat([head, s.frontmatter, mid, s.metadata, s.content]);
}

export function parseState(b: Buffer): StoredState {
  const { frontmatter, metadata, contentAt } = parseStateHead(b);
  return { frontmatter, metadata, content: b.toString('utf8', contentAt) };
}

/** A serialized state's frontmatter and metadata, and where its content starts (no string made of the content). */
export function parseStateHead(b: Buffer): { frontmatter: string; metadata: string; contentAt: number } {
  let at = 0;
  const read = (): string => {
    const [len, next] = readVarint(b, at);
    const s = b.toString('utf8', next, next + len);
    at = next + len;
    return s;
  };
  const frontmatter = read();
  const metadata = read();
  return { frontmatter, metadata, contentAt: at };
}

/** `older` stored against `newer` (a delta), or whole when `whole` is set or the delta does not pay. */
export function encodePrev(older: StoredState, newer: StoredState, whole: boolean): Buffer {
  const a = serializeState(older);
  if (!whole) {
    const b = serializeState(newer);
    if (a.equals(b)) return Buffer.from([SAME]);
    let start = 0;
    const max = Math.min(a.length, b.length);
    while (start < max && a[start] === b[start]) start++;
    let end = 0;
    while (end < max - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
    const middle = a.subarray(start, a.length - end);
    const dict = b.subarray(start, b.length - end);
    const head = [...varint(start), ...varint(end)];
    if (middle.length <= RAW_MIDDLE) return Buffer.concat([Buffer.from([DELTA_RAW, ...head]), middle]);
    const delta = Buffer.concat([Buffer.from([DELTA, ...head]), deflate(middle, dict)]);
    if (delta.length < a.length / 2) return delta;
  }
  const packed = deflate(a, null);
  return packed.length < a.length ? Buffer.concat([Buffer.from([WHOLE]), packed]) : Buffer.concat([Buffer.from([RAW]), a]);
}

/** Whether `prev` holds its state without the newer one. */
export function isWhole(prev: Buffer): boolean {
  return prev[0] === WHOLE || prev[0] === RAW;
}

/** The older state from `prev` and the newer state (unused when `prev` is whole). */
export function decodePrev(prev: Buffer, newer: StoredState | null): StoredState {
  return parseState(decodePrevBytes(prev, newer ? serializeState(newer) : null));
}

/** decodePrev on serialized states: a walk down several versions serializes and parses once. */
function decodePrevBytes(prev: Buffer, newer: Buffer | null): Buffer {
  const kind = prev[0];
  if (kind === WHOLE) return zlib.inflateRawSync(prev.subarray(1));
  if (kind === RAW) return prev.subarray(1);
  if (!newer) throw new Error('a revision delta needs the newer state');
  if (kind === SAME) return newer;
  if (kind !== DELTA && kind !== DELTA_RAW) throw new Error(`unknown revision encoding ${kind}`);
  const [start, at1] = readVarint(prev, 1);
  const [end, at2] = readVarint(prev, at1);
  const rest = prev.subarray(at2);
  const dict = newer.subarray(start, newer.length - end);
  const middle = kind === DELTA_RAW || rest.length === 0 ? rest : zlib.inflateRawSync(rest, dict.length ? { dictionary: dict } : {});
  return Buffer.concat([newer.subarray(0, start), middle, newer.subarray(newer.length - end)]);
}

/**
 * The serialized state that `walk` (the `prev` rows from the newer state down to the wanted
 * version, newest first) decodes to; `newer()` serializes the state above the first row, asked
 * for only when that row is a delta. An empty walk is the newer state itself.
 */
export function decodeWalk(walk: Uint8Array[], newer: () => Buffer): Buffer {
  if (walk.length === 0) return newer();
  let state: Buffer | null = isWhole(asBuffer(walk[0])) ? null : newer();
  for (const prev of walk) state = decodePrevBytes(asBuffer(prev), state);
  return state!;
}

/** A Uint8Array (as a worker receives a Buffer) as a Buffer over the same memory. */
function asBuffer(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
}

// A window no larger than the text needs: zlib allocates its window and hash tables per call, and
// most deltas are a few hundred bytes.
function deflate(input: Buffer, dict: Buffer | null): Buffer {
  const span = input.length + (dict?.length ?? 0) + 262; // zlib keeps 262 bytes of lookahead out of reach
  const windowBits = Math.min(15, Math.max(9, Math.ceil(Math.log2(span + 1))));
  const memLevel = Math.min(8, Math.max(1, windowBits - 7));
  return zlib.deflateRawSync(
    input,
    dict && dict.length ? { dictionary: dict, windowBits, memLevel, level: 9 } : { windowBits, memLevel, level: 9 },
  );
}

function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

function readVarint(b: Buffer, at: number): [number, number] {
  let n = 0;
  let scale = 1;
  for (;;) {
    const byte = b[at++];
    if (byte === undefined) throw new Error('truncated revision encoding');
    n += (byte & 0x7f) * scale;
    if (byte < 0x80) return [n, at];
    scale *= 128;
  }
}

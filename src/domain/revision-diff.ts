// The answer of GET …/revisions/:a/diff/:b (RevisionDiff) from the two revisions' stored bytes:
// decoded (revision-codec.ts), diffed (content-diff.ts) and written as JSON, the whole answer as
// UTF-8 bytes. Pure, so that for a large page all of it runs on the offload worker, which gets the
// page row's bytes and the `prev` rows and hands back the answer's bytes: the event loop decodes
// no 2 MiB state, escapes no diff and encodes no answer (docs/performance.md).
import {
  decodeWalk,
  parseState,
  parseStateHead,
  serializeStateBytes,
  type StoredState,
  type StoredStateBytes,
} from '../store/revision-codec.ts';
import { diffContents } from './content-diff.ts';

type RevisionDiff = {
  from: number;
  to: number;
  /** Present when the title changed. */
  title?: { from: string; to: string };
  contentDiff: string;
  /** The content diff is coarser than minimal, or empty, because finding the minimal one would take too long (content-diff.ts). */
  truncated: boolean;
  frontmatterChanged: string[];
  metadataChanged: string[];
};

/** What the answer says besides the two states: the versions and their titles. */
export type DiffHead = { from: number; to: number; fromTitle: string; toTitle: string; oldName: string; newName: string };

/** The stored form of both revisions: the page row's state as bytes, and each revision's walk (revisionWalk). */
export type StoredPair = { newest: StoredStateBytes; walks: [Uint8Array[], Uint8Array[]] };

/** Both revisions' states, decoded from their stored form; the newer state is serialized at most once. */
export function decodePair(p: StoredPair): [StoredState, StoredState] {
  const [a, b] = decodePairBytes(p);
  return [parseState(a), parseState(b)];
}

/** A state's frontmatter and metadata (JSON texts): what the answer's changed keys are found in. */
type StateHead = Pick<StoredState, 'frontmatter' | 'metadata'>;

/** decodePair without the contents (no string made of them). */
export function decodePairHeads(p: StoredPair): [StateHead, StateHead] {
  const [a, b] = decodePairBytes(p).map(parseStateHead);
  return [a, b];
}

function decodePairBytes(p: StoredPair): [Buffer, Buffer] {
  let serialized: Buffer | null = null;
  const newer = () => (serialized ??= serializeStateBytes(p.newest));
  return [decodeWalk(p.walks[0], newer), decodeWalk(p.walks[1], newer)];
}

/** The stored bytes of a pair in all (what decoding them costs at least). */
export function storedSize(p: StoredPair): number {
  let n = p.newest.frontmatter.length + p.newest.metadata.length + p.newest.content.length;
  for (const w of p.walks) for (const b of w) n += b.length;
  return n;
}

/**
 * The answer's JSON text: RevisionDiff with `contentDiffJson` (the diff already written as a JSON
 * string) as its last field.
 */
export function diffAnswerJson(h: DiffHead, a: StateHead, b: StateHead, contentDiffJson: string, truncated: boolean): string {
  const rest: Omit<RevisionDiff, 'contentDiff'> = {
    from: h.from,
    to: h.to,
    ...(h.fromTitle !== h.toTitle ? { title: { from: h.fromTitle, to: h.toTitle } } : {}),
    truncated,
    frontmatterChanged: changedKeys(JSON.parse(a.frontmatter), JSON.parse(b.frontmatter)),
    metadataChanged: changedKeys(JSON.parse(a.metadata), JSON.parse(b.metadata)),
  };
  const head = JSON.stringify(rest);
  return `${head.slice(0, -1)},"contentDiff":${contentDiffJson}}`;
}

/** The whole answer for two decoded states, the diff bounded by content-diff.ts. */
export function diffAnswerOf(h: DiffHead, a: StoredState, b: StoredState): string {
  const d = diffContents(h.oldName, h.newName, a.content, b.content);
  return diffAnswerJson(h, a, b, JSON.stringify(d.contentDiff), d.truncated);
}

/** The worker's job: the answer's UTF-8 bytes (in an ArrayBuffer of their own, to be handed over). */
export function diffAnswerBytes(h: DiffHead, p: StoredPair): Uint8Array<ArrayBuffer> {
  const [a, b] = decodePair(p);
  return new TextEncoder().encode(diffAnswerOf(h, a, b));
}

/** The keys whose value differs between two JSON objects (added, removed or changed), sorted. */
function changedKeys(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k])).sort();
}

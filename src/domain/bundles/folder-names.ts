// Names of folder files that a page path cannot hold as they are (docs/export-import.md
// "Reports"): reserved sub-resource names, escaped one-to-one; and notes whose bytes are not UTF-8.
import { RESERVED_LAST_SEGMENTS } from '../paths.ts';

// A last segment that names a page sub-resource (paths.ts), or `revisions/<n>`, followed by any
// number of `_`: such a file name gets one more `_` as a page path, so `links.md` is page `links_`
// and a vault's own `links_.md` is page `links__`: the escape is one-to-one and undone on export.
const RESERVED_ESCAPABLE = new RegExp(`^(?:${[...RESERVED_LAST_SEGMENTS].join('|')})_*$`);
const reservedLike = (segs: string[], last: string): boolean =>
  RESERVED_ESCAPABLE.test(last) || (segs.length >= 2 && segs[segs.length - 2] === 'revisions' && /^\d+_*$/.test(last));

/** A folder file's page path (without `.md`) as a page may have it: a reserved last segment gets a `_`. */
export function escapeReservedPath(path: string): string {
  const segs = path.split('/');
  return reservedLike(segs, segs[segs.length - 1]) ? `${path}_` : path;
}

/** The file path (without `.md`) of a page path: escapeReservedPath undone. */
export function unescapeReservedPath(path: string): string {
  const segs = path.split('/');
  const last = segs[segs.length - 1];
  return last.endsWith('_') && reservedLike(segs, last) ? path.slice(0, -1) : path;
}

/**
 * A folder file's name as an export writes it: `:` as `%3A` and `\` as `%5C`. Page paths refuse
 * both (paths.ts); a page stored before that rule, or an attached file's name with a `:`, would
 * otherwise be written as a name Windows reads as a path (`a\..\b`) or a data stream (`a:b`).
 */
export const exportedFileName = (name: string): string => name.replace(/[:\\]/g, (c) => (c === ':' ? '%3A' : '%5C'));

const UTF8 = new TextDecoder('utf-8', { ignoreBOM: true });
const LITERAL_REPLACEMENT = Buffer.from('\uFFFD');

/**
 * A note's bytes as text: invalid UTF-8 sequences become U+FFFD (as every reader shows them), and
 * `problem` says how many there were and where the first one is (line and byte), else null.
 */
export function decodeNote(bytes: Uint8Array): { text: string; problem: string | null } {
  const text = UTF8.decode(bytes);
  if (!text.includes('\uFFFD')) return { text, problem: null };
  // A U+FFFD written in the file (EF BF BD) is text, not a replacement.
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let count = 0;
  for (let i = text.indexOf('\uFFFD'); i !== -1; i = text.indexOf('\uFFFD', i + 1)) count++;
  for (let b = buf.indexOf(LITERAL_REPLACEMENT); b !== -1; b = buf.indexOf(LITERAL_REPLACEMENT, b + 3)) count--;
  if (count === 0) return { text, problem: null };
  // Before the first replacement the text is valid, so its UTF-8 length is the byte offset.
  let first = text.indexOf('\uFFFD');
  let at = Buffer.byteLength(text.slice(0, first));
  while (buf[at] === 0xef && buf[at + 1] === 0xbf && buf[at + 2] === 0xbd) {
    first = text.indexOf('\uFFFD', first + 1);
    at = Buffer.byteLength(text.slice(0, first));
  }
  const line = text.slice(0, first).split('\n').length;
  return {
    text,
    problem: `not valid UTF-8: ${count} invalid byte sequence${count === 1 ? '' : 's'} replaced by U+FFFD, the first on line ${line} (byte ${at})`,
  };
}

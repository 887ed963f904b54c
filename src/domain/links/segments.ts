// Path segments of a link target, resolved the way URL resolution does: shared by Markdown links
// (percent-encoded) and wikilinks (plain text).

// Reads each segment with `read` (percent-decoding for links, trimming for wikilinks), then
// applies `.`/`..` like URL resolution does; null on a segment `read` refuses or climbing above
// the space root. A trailing `.`/`..` names a folder, never a page.
export function resolveSegments(out: string[], raw: string[], read: (seg: string) => string | null = decodeSegment): string[] | null {
  for (let i = 0; i < raw.length; i++) {
    const seg = read(raw[i]);
    if (seg === null) return null;
    if (seg === '.' || seg === '..') {
      if (i === raw.length - 1) return null;
      if (seg === '..' && out.pop() === undefined) return null;
      continue;
    }
    out.push(seg);
  }
  return out;
}

/** A percent-encoded path segment decoded; null when its encoding is bad. */
export function decodeSegment(seg: string): string | null {
  if (!seg.includes('%')) return seg;
  try {
    return decodeURIComponent(seg);
  } catch {
    return null;
  }
}

// Text escaped for HTML in one pass, for the renderer's fallback (render.ts, unrenderedParts), which
// shows a page's text as written when rendering it took too long.

const AMP = [0x26, 0x61, 0x6d, 0x70, 0x3b]; // &amp;
const LT = [0x26, 0x6c, 0x74, 0x3b]; // &lt;
const GT = [0x26, 0x67, 0x74, 0x3b]; // &gt;
const QUOT = [0x26, 0x71, 0x75, 0x6f, 0x74, 0x3b]; // &quot;

/**
 * Text escaped for HTML, NUL as U+FFFD, in one pass over code units into one buffer: on the event
 * loop, where escapeHtml's callback per character (or a replaceAll per character kind) took
 * seconds over 2 MiB of `&` or `>`.
 */
export function escapeText(text: string): string {
  let extra = 0;
  let nul = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x26) extra += 4;
    else if (c === 0x3c || c === 0x3e) extra += 3;
    else if (c === 0x22) extra += 5;
    else if (c === 0) nul = true;
  }
  if (extra === 0 && !nul) return text;
  const out = new Uint16Array(text.length + extra);
  let o = 0;
  const put = (codes: number[]) => {
    for (const k of codes) out[o++] = k;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x26) put(AMP);
    else if (c === 0x3c) put(LT);
    else if (c === 0x3e) put(GT);
    else if (c === 0x22) put(QUOT);
    else out[o++] = c === 0 ? 0xfffd : c;
  }
  return Buffer.from(out.buffer).toString('utf16le'); // a lone surrogate stays as it was
}

// What kspace resolved, read from a page's `?render=html` (the renderer's documented markup,
// docs/markdown.md): its page links and embeds (`/app/p/…` hrefs, `class="internal broken"` for a
// page that does not exist, `div.embed` for a note embed), its file references (`/files/…` as an
// image, a player or a link), and the page's own heading ids and block anchors. What an embed
// shows of another page (`div.embed-content`) belongs to that page and is skipped.

export type HtmlRef =
  | { kind: 'page'; embed: boolean; space: string; path: string; fragment: string; broken: boolean; html: string }
  | { kind: 'file'; href: string; html: string }
  | { kind: 'unavailable'; html: string };

export type PageHtml = { refs: HtmlRef[]; headings: string[]; ids: Set<string> };

const TAG = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)((?:\s[^>]*)?)>/g;
const ATTR = /([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:="([^"]*)")?/g;

const unescape = (s: string) =>
  s.replace(/&(?:amp|lt|gt|quot|#39|#x27);/g, (e) => ({ '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"' })[e] ?? "'");

function attrs(s: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const a of s.matchAll(ATTR)) m.set(a[1].toLowerCase(), unescape(a[2] ?? ''));
  return m;
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The references and anchors of one page's rendered HTML. */
export function readPageHtml(html: string): PageHtml {
  const refs: HtmlRef[] = [];
  const headings: string[] = [];
  const ids = new Set<string>();
  const divs: string[] = []; // the class of each open div
  for (const m of html.matchAll(TAG)) {
    const [whole, closing, tagName, rest] = m;
    const tag = tagName.toLowerCase();
    if (tag === 'div') {
      if (closing) divs.pop();
      else divs.push(attrs(rest).get('class') ?? '');
      if (closing) continue;
    }
    if (closing || divs.some((c) => c.split(' ').includes('embed-content'))) continue;
    const a = attrs(rest);
    const embed = divs.some((c) => c.split(' ').includes('embed'));
    const id = a.get('id');
    if (id) {
      ids.add(id);
      if (/^h[1-6]$/.test(tag)) headings.push(id);
    }
    if (tag === 'div' && a.get('class')?.split(' ').includes('embed-unavailable'))
      refs.push({ kind: 'unavailable', html: excerpt(html, m.index) });
    const url =
      tag === 'a' ? a.get('href') : tag === 'img' || tag === 'audio' || tag === 'video' || tag === 'source' ? a.get('src') : undefined;
    if (!url) continue;
    if (url.startsWith('/files/')) refs.push({ kind: 'file', href: url, html: whole });
    else if (url.startsWith('/app/p/')) {
      const hash = url.indexOf('#');
      const [space, ...segs] = (hash < 0 ? url : url.slice(0, hash)).slice('/app/p/'.length).split('/');
      refs.push({
        kind: 'page',
        embed,
        space: decode(space),
        path: segs.map(decode).join('/'),
        fragment: hash < 0 ? '' : decode(url.slice(hash + 1)),
        broken: (a.get('class') ?? '').split(' ').includes('broken'),
        html: excerpt(html, m.index),
      });
    }
  }
  return { refs, headings, ids };
}

/** The HTML of a link from its start to its end tag, for a report. */
function excerpt(html: string, at: number): string {
  const end = html.indexOf('</', at);
  const close = end < 0 ? -1 : html.indexOf('>', end);
  return html.slice(at, close < 0 ? at + 200 : Math.min(close + 1, at + 300));
}

// A page whose text starts with `# Its title` would show two top headings in the page view (the
// view's own title, then the text's). The text's first heading goes when it says the same thing.

const LEADING_H1 = /^\s*<h1(?: id="([^"]*)")?[^>]*>([\s\S]*?)<\/h1>\n?/;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };

/** The text of some HTML: tags dropped, the entities markdown-it writes decoded. */
function text(html: string): string {
  return html.replace(/<[^>]*>/g, '').replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ENTITIES[e]);
}

const same = (a: string, b: string): boolean =>
  a.normalize('NFC').replace(/\s+/g, ' ').trim().toLowerCase() === b.normalize('NFC').replace(/\s+/g, ' ').trim().toLowerCase();

/**
 * The rendered page without its first `<h1>` when that heading repeats the title (case and spaces
 * aside). Its id stays, on an empty span, so links to `#h-…` still land at the top.
 */
export function withoutTitleHeading(html: string, title: string): string {
  const m = LEADING_H1.exec(html);
  if (!m || !same(text(m[2]), title)) return html;
  return (m[1] ? `<span id="${m[1]}"></span>` : '') + html.slice(m[0].length);
}

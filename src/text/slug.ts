// One slug rule for every name made from text: a space slug, a template id, a page path segment
// proposed from a title (MCP's create_record, the web app's New Page). Lower-case words joined by
// `-`: accents dropped (NFKD, then the combining diacritics U+0300–036F, so a Japanese voicing
// mark stays), anything but letters and digits a separator, no `-` at either end. `ascii` keeps
// a–z and 0–9 only, as space slugs and template ids must be.

type SlugOptions = { ascii?: boolean; max?: number };

/** The slug of `text`, at most `max` characters (default 80); `''` when no letter or digit is left. */
export function slugify(text: string, { ascii = false, max = 80 }: SlugOptions = {}): string {
  const words = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .normalize('NFC')
    .toLowerCase();
  const joined = words.replace(ascii ? /[^a-z0-9]+/g : /[^\p{L}\p{N}]+/gu, '-').replace(/^-+|-+$/g, '');
  return [...joined].slice(0, max).join('').replace(/-+$/, '');
}

import YAML from 'yaml';

/** A page as a Markdown document: YAML frontmatter (title first) and the body. */
export function toMarkdownDocument(title: string, frontmatter: Record<string, unknown>, content: string): string {
  const fm = { title, ...Object.fromEntries(Object.entries(frontmatter).filter(([k]) => k !== 'title')) };
  return `---\n${YAML.stringify(fm)}---\n${content.startsWith('\n') ? '' : '\n'}${content}`;
}

/** Splits a Markdown document into its frontmatter object and body (no frontmatter → {}). */
export function parseMarkdownDocument(text: string): { frontmatter: Record<string, unknown>; content: string } {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  if (!m) return { frontmatter: {}, content: text };
  const data: unknown = YAML.parse(m[1]);
  const frontmatter = data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
  return { frontmatter, content: text.slice(m[0].length).replace(/^\r?\n/, '') };
}

import type { Limits } from '../config/config.ts';
import { AppError, invalidField } from './errors.ts';
import type { PageState } from '../store/pages.ts';

// Size caps of a stored page. Every revision stores the page whole, so an uncapped part
// (frontmatter, metadata lists) multiplies with every later write, metadata patches included.

/** Frontmatter's own caps: its JSON size (413) and its top-level key count (400). */
export function checkFrontmatter(frontmatter: Record<string, unknown>, limits: Limits): void {
  const bytes = Buffer.byteLength(JSON.stringify(frontmatter));
  if (bytes > limits.frontmatterBytes) {
    throw tooLarge('frontmatter', `frontmatter is limited to ${limits.frontmatterBytes} bytes as JSON (this one has ${bytes})`);
  }
  const keys = Object.keys(frontmatter).length;
  if (keys > limits.frontmatterKeys) {
    throw invalidField('frontmatter', 'max', `frontmatter has at most ${limits.frontmatterKeys} top-level keys (this one has ${keys})`);
  }
}

type Part = 'content' | 'frontmatter' | 'metadata';

/**
 * The whole stored page against SERVICE_MAX_STORED_PAGE_BYTES; 413 naming the biggest of the
 * parts this write changed (the one that took the page over), else the biggest part.
 */
export function checkStoredSize(next: PageState, previous: PageState | null, limits: Limits): void {
  const sizes: Array<[Part, number]> = [
    ['content', Buffer.byteLength(next.content)],
    ['frontmatter', Buffer.byteLength(next.frontmatter)],
    ['metadata', Buffer.byteLength(next.metadata)],
  ];
  const total = sizes.reduce((n, [, s]) => n + s, 0);
  if (total <= limits.storedPageBytes) return;
  const changed = sizes.filter(([part]) => previous === null || previous[part] !== next[part]);
  const [part] = (changed.length ? changed : sizes).reduce((a, b) => (b[1] > a[1] ? b : a));
  throw tooLarge(
    part,
    `a page is limited to ${limits.storedPageBytes} bytes of content, frontmatter and metadata together ` +
      `(this write makes ${total}: content ${sizes[0][1]}, frontmatter ${sizes[1][1]}, metadata ${sizes[2][1]})`,
  );
}

function tooLarge(key: Part, message: string): AppError {
  return new AppError('payload_too_large', `${key}: ${message}`, [{ key, code: 'max', message }]);
}

import { expect } from 'vitest';
import type { Client } from './server.ts';

// The link answers of a page or space, as short strings for toEqual.

/** Outbound links of `page` (`space/path`): `space/path`, with ` (absent)` for a missing target. */
export async function outboundOf(c: Client, page: string): Promise<string[]> {
  const r = await c.get(`/pages/${page}/links`);
  expect(r.status, r.text).toBe(200);
  return (r.body.outbound as Array<{ space: string; path: string; exists: boolean }>).map(
    (l) => `${l.space}/${l.path}${l.exists ? '' : ' (absent)'}`,
  );
}

/** Backlinks of `page` (`space/path`) as `space/path`. */
export async function backlinksOf(c: Client, page: string): Promise<string[]> {
  const r = await c.get(`/pages/${page}/links`);
  expect(r.status, r.text).toBe(200);
  return (r.body.backlinks as Array<{ space: string; path: string }>).map((l) => `${l.space}/${l.path}`);
}

/** The broken links of a space as `source path -> space/target path`. */
export async function brokenLinksOf(c: Client, slug: string): Promise<string[]> {
  const r = await c.get(`/spaces/${slug}/links/broken`);
  expect(r.status, r.text).toBe(200);
  return (r.body as Array<{ source: { path: string }; target: { space: string; path: string } }>).map(
    (b) => `${b.source.path} -> ${b.target.space}/${b.target.path}`,
  );
}

/** Writes page `at` (`space/path`), created or replaced; its answer's body. */
export async function putPage(c: Client, at: string, content: string, title: string): Promise<unknown> {
  const r = await c.put(`/pages/${at}`, { title, content });
  expect([200, 201], r.text).toContain(r.status);
  return r.body;
}

/** Sets page `at`'s ACL (`admin` may). */
export async function setAcl(admin: Client, at: string, read: string[], write: string[]): Promise<void> {
  const r = await admin.put(`/pages/${at}/acl`, { read, write });
  expect(r.status, r.text).toBe(200);
}

/** The content of page `at` (`space/path`) as `c` reads it. */
export async function contentOf(c: Client, at: string): Promise<string> {
  const r = await c.get(`/pages/${at}`);
  expect(r.status, r.text).toBe(200);
  return r.body.content;
}

// A page read (GET /pages/:space/**:path), the most frequent request: its answer, with the ETag
// and the conditional GET, for the endpoint (routes/pages.ts) and for the direct path below.
//
// The direct path answers the plain case on the Node side, before h3: a GET of a page with a
// Bearer key, no query string and a URL that h3 would not rewrite. It matches the URL with the
// same endpoint table and runs the same authentication, access check and answer as the endpoint;
// what it skips is h3's request and response objects, its router and the promise chain around
// them, which cost half the GET throughput (docs/performance.md, Reads). Every other outcome (no key or
// an unknown one, a cookie, HEAD, a query such as ?render=html, a page that is absent, hidden or
// moved, a malformed path) is left to h3 and the endpoint, which answer it as before.
import crypto from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { cached } from '../bounded-cache.ts';
import type { Services } from '../services.ts';
import type { Caller } from '../model.ts';
import { toMarkdownDocument } from '../domain/markdown-doc.ts';
import { loadReadablePage, pageJson, presentPage, readablePageStamp } from '../domain/pages.ts';
import { authenticateKey } from '../domain/principals.ts';
import { noteDirect } from './request-notes.ts';
import type { AnyEndpoint } from './endpoint.ts';
import { etagMatches } from './etag.ts';
import { PAGE_PREFIX } from './page-paths.ts';
import { answerViolation } from './response-check.ts';
import { endpointFinder } from './router.ts';

const JSON_TYPE = 'application/json; charset=utf-8';
const MARKDOWN_TYPE = 'text/markdown; charset=utf-8';

// The ETag names the page row and its version: `"<version>-<tag>"`, `-md` added for the Markdown
// form. The version comes first, so `If-Match` with it still reads the version (contract). The tag
// tells apart two pages that held the same address at the same version (a page moved away and
// another one written there); it is a hash of the row id with a salt drawn at start, so it does not
// show the id (ids count the pages of every organisation). A restart changes every ETag: clients
// read each page once more.
const SALT = crypto.randomBytes(16).toString('base64url');

function pageETag(page: { id: number; version: number }, markdown: boolean): string {
  return `"${page.version}-${tagOf(page.id)}${markdown ? '-md' : ''}"`;
}

// The tags of the pages read lately, so a page read does not hash its id each time.
const tags = new Map<number, string>();
const tagOf = (id: number): string => cached(tags, id, 8192, () => crypto.hash('sha256', `${SALT}${id}`, 'base64url').slice(0, 10));

type PageAnswer = { status: 200 | 304; etag: string; contentType?: string; body?: string };

/**
 * The answer to a GET of a page (not `?render=html`). With If-None-Match, the page row's id,
 * version and access columns are read first (not its content): 304 when the ETag matches. An
 * absent or unreadable page throws 404 whatever If-None-Match says.
 */
export function readPageAnswer(
  svc: Services,
  caller: Caller,
  slug: string,
  path: string,
  ifNoneMatch: string | null | undefined,
  markdown: boolean,
): PageAnswer {
  if (ifNoneMatch) {
    const { page } = readablePageStamp(svc, caller, slug, path);
    const etag = pageETag(page, markdown);
    if (etagMatches(ifNoneMatch, etag)) return { status: 304, etag };
  }
  const { space, page } = loadReadablePage(svc, caller, slug, path);
  const etag = pageETag(page, markdown);
  if (markdown) {
    const p = presentPage(space, page);
    return { status: 200, etag, contentType: MARKDOWN_TYPE, body: toMarkdownDocument(p.title, p.frontmatter, p.content) };
  }
  return { status: 200, etag, contentType: JSON_TYPE, body: pageJson(space, page) };
}

/** True when an Accept header asks for Markdown before JSON. */
export function prefersMarkdown(accept: string | null | undefined): boolean {
  if (!accept) return false;
  const md = accept.indexOf('text/markdown');
  const js = accept.indexOf('application/json');
  return md !== -1 && (js === -1 || md < js);
}

// A URL h3 takes as it is: no query or fragment, only characters that URL parsing keeps, and no
// segment starting with a dot (`.`, `..` and their encoded forms are resolved by URL parsing).
const PLAIN_PAGE_URL = /^\/pages\/[A-Za-z0-9\-_~!$&'()*+,;=:@%/.]+$/;
const DOT_SEGMENT = /\/(?:\.|%2e)/i;
const BEARER = /^Bearer\s+(\S+)\s*$/i;

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

/** The direct path over the endpoint table: true when it answered, false to hand the request to h3. */
export function directPageRead(svc: Services, table: AnyEndpoint[]): NodeHandler {
  const find = endpointFinder(table);
  const endpoint = table.find((e) => e.method === 'GET' && e.path === PAGE_PREFIX);
  if (!endpoint) return () => false;
  return (req, res) => {
    const url = req.url;
    if (req.method !== 'GET' || !url || !PLAIN_PAGE_URL.test(url) || DOT_SEGMENT.test(url)) return false;
    const auth = req.headers.authorization;
    const key = auth ? BEARER.exec(auth) : null;
    if (!key) return false;
    const found = find('GET', url);
    if (!found || !('endpoint' in found) || found.endpoint !== endpoint) return false;
    let answer: PageAnswer;
    let caller: Caller | null;
    try {
      caller = authenticateKey(svc, key[1]);
      if (!caller) return false;
      answer = readPageAnswer(
        svc,
        caller,
        found.params.space,
        found.params.path,
        req.headers['if-none-match'],
        prefersMarkdown(req.headers.accept),
      );
    } catch {
      return false; // 404, a moved page, or a fault: h3 and the endpoint answer it
    }
    if (svc.config.validateResponses && answerViolation(endpoint, answer.status, answer.contentType ?? null, answer.body ?? null))
      return false;
    noteDirect(req, '/pages/**', caller.id); // the route h3 logs for every page request
    const headers =
      answer.body === undefined
        ? ['etag', answer.etag]
        : ['content-type', answer.contentType!, 'etag', answer.etag, 'content-length', String(Buffer.byteLength(answer.body))];
    res.writeHead(answer.status, '', headers);
    res.end(answer.body);
    return true;
  };
}

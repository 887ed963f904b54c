// A page's links within SERVICE_MAX_LINKS_PER_PAGE (docs/security.md "Links on writes"): a write
// past it is a 400 naming `content` with nothing written, whether the write's transaction scans
// the content (small pages) or the offload worker does first (large ones); stored content past
// a lowered budget is indexed up to it.
import { describe, expect, it } from 'vitest';
import { startServer } from '../support/server.ts';
import { useServer } from '../support/fixture.ts';

const CAP = 20;
const { srv } = useServer({ env: { SERVICE_MAX_LINKS_PER_PAGE: String(CAP) }, spaces: [{ slug: 'lb', name: 'Links' }], timeout: 60_000 });

const wikilinks = (n: number) => Array.from({ length: n }, (_, i) => `[[Note ${i}]]`).join('\n');
const mdLinks = (n: number) => Array.from({ length: n }, (_, i) => `[n${i}](/pages/lb/n${i})`).join('\n');
/** Prose that holds no link syntax, past the size scanned in the transaction (links/prepare.ts: 16 KiB). */
const PADDING = 'Plain words without any brackets at all.\n'.repeat(1000);

async function outbound(path: string): Promise<string[]> {
  const r = await srv.admin.get(`/pages/lb/${path}/links?limit=1000`);
  expect(r.status).toBe(200);
  return (r.body.outbound as Array<{ space: string; path: string }>).map((l) => l.path);
}

describe('a write past the link budget', () => {
  it.each([
    ['distinct wikilinks, small page', wikilinks(CAP + 1)],
    ['distinct markdown links, small page', mdLinks(CAP + 1)],
    ['distinct wikilinks, large page (scanned on the worker)', PADDING + wikilinks(CAP + 1)],
    ['distinct markdown links, large page (scanned on the worker)', mdLinks(CAP + 1) + '\n\n' + PADDING],
    ['brackets past twice the budget, large page', PADDING + '[a]('.repeat(2 * CAP + 1)],
  ])('%s: 400 naming content, nothing written', async (_name, content) => {
    const path = `over-${Math.random().toString(36).slice(2)}`;
    const r = await srv.admin.put(`/pages/lb/${path}`, { title: 'Over', content });
    expect(r.status, r.text).toBe(400);
    expect(r.headers.get('content-type')).toContain('application/problem+json');
    expect(r.body.code).toBe('validation_failed');
    expect(r.body.issues).toEqual([expect.objectContaining({ key: 'content', code: 'max' })]);
    expect(r.body.issues[0].message).toContain('SERVICE_MAX_LINKS_PER_PAGE');
    expect((await srv.admin.get(`/pages/lb/${path}`)).status).toBe(404);
  });

  it('leaves an existing page as it was', async () => {
    expect((await srv.admin.put('/pages/lb/kept', { title: 'Kept', content: mdLinks(3) })).status).toBe(201);
    expect((await srv.admin.put('/pages/lb/kept', { content: PADDING + mdLinks(CAP + 1) })).status).toBe(400);
    const page = await srv.admin.get('/pages/lb/kept');
    expect(page.body.version).toBe(1);
    expect(await outbound('kept')).toEqual(['n0', 'n1', 'n2']);
  });
});

describe('a write within the link budget', () => {
  it.each([
    ['small page', mdLinks(CAP)],
    ['large page (scanned on the worker)', PADDING + mdLinks(CAP)],
    ['one target repeated far past the budget', PADDING + '[x](/pages/lb/n0) '.repeat(2 * CAP)],
  ])('%s: written, its links indexed in order', async (name, content) => {
    const path = `within-${name.length}`;
    const r = await srv.admin.put(`/pages/lb/${path}`, { title: 'Within', content });
    expect(r.status, r.text).toBe(201);
    const n = content.includes('/pages/lb/n1)') ? CAP : 1;
    expect(await outbound(path)).toEqual(Array.from({ length: n }, (_, i) => `n${i}`));
  });

  it('indexes wikilinks scanned on the worker as the transaction would', async () => {
    expect((await srv.admin.put('/pages/lb/Note 3', { title: 'Note 3', content: 'here' })).status).toBe(201);
    expect((await srv.admin.put('/pages/lb/w-small', { title: 'W small', content: wikilinks(CAP) })).status).toBe(201);
    expect((await srv.admin.put('/pages/lb/w-large', { title: 'W large', content: PADDING + wikilinks(CAP) })).status).toBe(201);
    const small = await outbound('w-small');
    expect(small).toHaveLength(CAP);
    expect(await outbound('w-large')).toEqual(small);
  });
});

describe('stored content past a lowered budget', () => {
  it('is indexed up to the budget by a rebuild, not refused', async () => {
    const first = await startServer({ SERVICE_MAX_LINKS_PER_PAGE: '10' }, { keepData: true });
    try {
      expect((await first.admin.post('/spaces', { slug: 'low', name: 'Low' })).status).toBe(201);
      expect(
        (await first.admin.put('/pages/low/p', { title: 'P', content: mdLinks(10).replaceAll('/pages/lb/', '/pages/low/') })).status,
      ).toBe(201);
    } finally {
      await first.close();
    }
    const again = await startServer({ SERVICE_MAX_LINKS_PER_PAGE: '4' }, { dataDir: first.dataDir });
    try {
      const r = await again.admin.post('/links/rebuild');
      expect(r.status, r.text).toBe(200);
      const links = await again.admin.get('/pages/low/p/links');
      expect((links.body.outbound as Array<{ path: string }>).map((l) => l.path)).toEqual(['n0', 'n1', 'n2', 'n3']);
      // A write of the same content now is past the budget.
      expect((await again.admin.put('/pages/low/q', { title: 'Q', content: mdLinks(5) })).status).toBe(400);
    } finally {
      await again.close();
    }
  }, 60_000);
});

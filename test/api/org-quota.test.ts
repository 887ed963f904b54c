// The organisation's storage quota (SERVICE_ORG_QUOTA_BYTES, docs/operations.md): live pages'
// current state and files count; a write that grows them past the quota is a 413 naming the
// setting with nothing written, at the quota is fine, a delete frees room, and an import past it
// is refused whole.
import { describe, expect, it } from 'vitest';
import { ADMIN_KEY } from '../support/server.ts';
import { useServer } from '../support/fixture.ts';

const QUOTA = 50_000;
const { srv } = useServer({
  env: { SERVICE_ORG_QUOTA_BYTES: String(QUOTA) },
  spaces: [{ slug: 'q', name: 'Quota' }],
  noErrors: true,
  timeout: 60_000,
});

/** A page's bytes: its content and the stored `{}` of its frontmatter and its metadata. */
const pageBytes = (content: string) => Buffer.byteLength(content) + 4;
const put = (path: string, content: string) => srv.admin.put(`/pages/q/${path}`, { title: path, content });
const upload = async (path: string, bytes: number) => {
  const r = await fetch(`${srv.url}/files/q/${path}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/octet-stream' },
    body: Buffer.alloc(bytes, 1),
  });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> & { issues?: Array<{ key: string }> } };
};
/** What the organisation stores now, as a refused write reports it. */
async function used(): Promise<number> {
  const r = await put('probe', 'x'.repeat(QUOTA + 1));
  expect(r.status).toBe(413);
  return r.body.used as number;
}

function expectQuotaProblem(r: { status: number; body: Record<string, unknown> & { issues?: Array<{ key: string }> } }) {
  expect(r.status).toBe(413);
  expect(r.body.code).toBe('payload_too_large');
  expect(r.body.setting).toBe('SERVICE_ORG_QUOTA_BYTES');
  expect(r.body.limit).toBe(QUOTA);
  expect(r.body.issues?.[0].key).toBe('SERVICE_ORG_QUOTA_BYTES');
}

describe('SERVICE_ORG_QUOTA_BYTES', () => {
  it('takes a page that fills the quota exactly, refuses a byte more, and a file past it', async () => {
    const start = await used();
    expect((await put('home', 'h')).status).toBe(201);
    const free = QUOTA - start - pageBytes('h');
    expect((await put('fill', 'f'.repeat(free - 4))).status).toBe(201); // at the quota
    expect(await used()).toBe(QUOTA);

    const over = await put('one-more', 'x');
    expectQuotaProblem(over);
    expect((await srv.admin.get('/pages/q/one-more')).status).toBe(404);
    expectQuotaProblem(await upload('home/a.bin', 1));
    expect((await srv.admin.get('/pages/q/home/files')).body.files).toEqual([]);

    // A rewrite that stores no more passes at the quota; one that grows is refused and changes nothing.
    expect((await put('fill', 'g'.repeat(free - 4))).status).toBe(200);
    const grown = await put('fill', 'g'.repeat(free));
    expectQuotaProblem(grown);
    expect((await srv.admin.get('/pages/q/fill')).body.version).toBe(2);
  });

  it('frees room when a page or a file is deleted', async () => {
    expect((await srv.admin.del('/pages/q/fill')).status).toBe(204);
    const room = QUOTA - (await used());
    expect(room).toBeGreaterThan(1000);
    expect((await upload('home/a.bin', room)).status).toBe(201); // at the quota again
    expectQuotaProblem(await upload('home/b.bin', 1));
    expect(
      (await fetch(`${srv.url}/files/q/home/a.bin`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_KEY}` } })).status,
    ).toBe(204);
    expect((await upload('home/b.bin', 1000)).status).toBe(201);
    expect(await used()).toBe(QUOTA - room + 1000);
  });

  it('refuses an import past the quota whole: no page of it is written', async () => {
    const room = QUOTA - (await used());
    const bundle = {
      format: 'service-space-export',
      formatVersion: 1,
      space: { slug: 'q', name: 'Quota' },
      pages: [
        { path: 'imp/a', title: 'A', content: 'a'.repeat(Math.floor(room / 2)) },
        { path: 'imp/b', title: 'B', content: 'b'.repeat(Math.floor(room / 2)) },
      ],
    };
    const r = await srv.admin.post('/spaces/q/import', bundle);
    expectQuotaProblem(r);
    for (const p of ['imp/a', 'imp/b']) expect((await srv.admin.get(`/pages/q/${p}`)).status).toBe(404);
    // The same bundle within the room imports.
    bundle.pages[1].content = 'b';
    expect((await srv.admin.post('/spaces/q/import', bundle)).body).toMatchObject({ created: 2, errors: [] });
  });

  it('keeps its count equal to what the organisation stores, through writes, deletes, files and moves', async () => {
    expect((await srv.admin.post('/spaces/q/moves', { from: 'imp', to: 'moved', prefix: true })).status).toBe(200);
    expect((await srv.admin.patch('/pages/q/home/metadata', { set: { stage: 'done' } })).status).toBe(200);
    const db = srv.svc.db;
    const counted = (db.prepare('SELECT bytes FROM org_usage').all() as Array<{ bytes: number }>).map((r) => r.bytes);
    const stored = db
      .prepare(`SELECT
        (SELECT coalesce(sum(length(CAST(content AS BLOB)) + length(CAST(frontmatter AS BLOB)) + length(CAST(metadata AS BLOB))), 0)
          FROM pages WHERE deleted_at IS NULL)
        + (SELECT coalesce(sum(size), 0) FROM attachments) AS bytes`)
      .get() as { bytes: number };
    expect(counted).toEqual([stored.bytes]);
  });
});

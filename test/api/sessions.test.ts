import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { postSession } from '../support/sessions.ts';
import { runCliHere } from '../support/cli.ts';
import { makeOldDatabase } from '../support/old-db.ts';
import { startReceiver, type Receiver } from '../support/receiver.ts';
import { startServer, type TestServer, withServer } from '../support/server.ts';

// Web sessions over real HTTP: cookie flags, CSRF, expiry, revocation, rate limits (docs/web.md).

type Session = { cookie: string; csrf: string; principal: { id: string; name: string; kind: string; orgAdmin: boolean } };

async function createUser(srv: TestServer, name: string, password = 'correct horse', orgAdmin = false): Promise<string> {
  const r = await srv.admin.post('/admin/principals', { name, kind: 'user', password, orgAdmin });
  if (r.status !== 201) throw new Error(`create user: ${r.status} ${r.text}`);
  return r.body.id;
}

function signInRaw(srv: TestServer, name: string, password: string, headers: Record<string, string> = {}): Promise<Response> {
  return postSession(srv.url, name, password, headers);
}

async function signIn(srv: TestServer, name: string, password = 'correct horse'): Promise<Session> {
  const r = await signInRaw(srv, name, password);
  if (r.status !== 200) throw new Error(`sign in: ${r.status} ${await r.text()}`);
  const body = await r.json();
  const cookie = r.headers.get('set-cookie')!.split(';')[0];
  return { cookie, csrf: body.csrfToken, principal: body.principal };
}

/** A request as the app sends it: the cookie, the CSRF token and this origin, unless overridden. */
function as(
  srv: TestServer,
  s: Session,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string | undefined> = {},
): Promise<Response> {
  const h: Record<string, string> = {};
  const all: Record<string, string | undefined> = { cookie: s.cookie, 'x-csrf-token': s.csrf, origin: srv.url, ...headers };
  for (const [k, v] of Object.entries(all)) if (v !== undefined) h[k] = v;
  if (body !== undefined) h['content-type'] = 'application/json';
  return fetch(srv.url + path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
}

describe('sessions', () => {
  let srv: TestServer;
  let rx: Receiver;
  beforeAll(async () => {
    rx = await startReceiver();
    srv = await startServer({
      SERVICE_WEBHOOKS_ALLOW_HTTP: '1',
      SERVICE_WEBHOOKS_ALLOW_PRIVATE_URLS: '1',
      SERVICE_WEBHOOKS_RETRY_DELAYS: '0.05',
      SERVICE_SETTINGS_ENCRYPTION_KEY: 'test-settings-key-0123456789abcdef-xyz',
      SERVICE_SIGNIN_NAME_BURST: '3',
      SERVICE_SIGNIN_NAME_PER_MINUTE: '60',
    });
    await createUser(srv, 'alice');
    await srv.admin.post('/spaces', { slug: 'team', name: 'Team' });
  });
  afterAll(async () => {
    await srv.close();
    await rx.close();
  });

  it('signs in with name and password: HttpOnly, SameSite=Lax, Path=/ cookie, no Secure over http', async () => {
    const r = await signInRaw(srv, 'alice', 'correct horse');
    expect(r.status).toBe(200);
    const body = await r.json();
    expect(body).toEqual({
      principal: { id: expect.stringMatching(/^p_/), name: 'alice', kind: 'user', orgAdmin: false },
      csrfToken: expect.any(String),
    });
    const cookie = r.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^kspace_session=[A-Za-z0-9_-]{43}; /);
    const flags = cookie
      .split(';')
      .map((s) => s.trim().toLowerCase())
      .slice(1);
    expect(flags).toEqual(expect.arrayContaining(['httponly', 'samesite=lax', 'path=/']));
    expect(flags).not.toContain('secure');
    expect(r.headers.get('cache-control')).toBe('no-store');
  });

  it('uses __Host-kspace_session with Secure when served over https', async () => {
    await withServer({ SERVICE_BASE_URL: 'https://kspace.example' }, async (https) => {
      await createUser(https, 'hana');
      const r = await signInRaw(https, 'hana', 'correct horse');
      expect(r.status).toBe(200);
      // The session cookie, and the transaction number of the sign-in (docs/scale-out.md), Secure too.
      const [cookie, txid] = r.headers.getSetCookie();
      expect(cookie).toMatch(/^__Host-kspace_session=[^;]+; Path=\/; HttpOnly; SameSite=Lax; Secure$/);
      expect(txid).toMatch(/^kspace_txid=\d+; Path=\/; Max-Age=60; HttpOnly; SameSite=Lax; Secure$/);
      const me = await fetch(`${https.url}/me`, { headers: { cookie: cookie.split(';')[0] } });
      expect((await me.json()).name).toBe('hana');
      // Over https the plain name is not read, even holding a live session's token.
      const token = cookie.split(';')[0].split('=')[1];
      const plain = await fetch(`${https.url}/me`, { headers: { cookie: `kspace_session=${token}` } });
      expect(plain.status).toBe(401);
    });
  });

  it('behind a trusted proxy, X-Forwarded-Proto: https makes it https: __Host- cookie set, the plain name not read', async () => {
    await withServer({ SERVICE_TRUST_PROXY: '1' }, async (proxied) => {
      await createUser(proxied, 'ida');
      const r = await signInRaw(proxied, 'ida', 'correct horse', { 'x-forwarded-proto': 'https' });
      expect(r.status).toBe(200);
      const cookie = r.headers.getSetCookie()[0];
      expect(cookie).toMatch(/^__Host-kspace_session=[^;]+;.*; Secure$/);
      const token = cookie.split(';')[0].split('=')[1];
      const me = (c: string, proto?: string) =>
        fetch(`${proxied.url}/me`, { headers: { cookie: c, ...(proto ? { 'x-forwarded-proto': proto } : {}) } });
      expect((await me(`__Host-kspace_session=${token}`, 'https')).status).toBe(200);
      expect((await me(`kspace_session=${token}`, 'https')).status).toBe(401);
      expect((await me(`kspace_session=${token}`)).status).toBe(200); // plain http through the proxy
    });
    // Without SERVICE_TRUST_PROXY the header is the client's word: ignored.
    await withServer({}, async (direct) => {
      await createUser(direct, 'ida');
      const r = await signInRaw(direct, 'ida', 'correct horse', { 'x-forwarded-proto': 'https' });
      expect(r.headers.getSetCookie()[0]).toMatch(/^kspace_session=/);
    });
  });

  it('refuses a wrong password, an unknown name and an agent with 401 invalid_credentials', async () => {
    const cases: [string, string][] = [
      ['alice', 'wrong password'],
      ['nobody', 'correct horse'],
      ['admin', 'whatever1'],
    ];
    for (const [name, password] of cases) {
      const r = await signInRaw(srv, name, password);
      expect(r.status, name).toBe(401);
      expect((await r.json()).code).toBe('invalid_credentials');
      expect(r.headers.get('set-cookie')).toBeNull();
    }
    const bad = await fetch(`${srv.url}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"alice"}',
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).issues[0].key).toBe('password');
  });

  it('authenticates every API route with the cookie; GET /session answers the same view', async () => {
    const s = await signIn(srv, 'alice');
    const me = await as(srv, s, 'GET', '/me');
    expect(await me.json()).toMatchObject({ name: 'alice', kind: 'user' });
    const view = await as(srv, s, 'GET', '/session');
    expect(await view.json()).toEqual({ principal: s.principal, csrfToken: s.csrf });
    expect((await fetch(`${srv.url}/session`)).status).toBe(401);
    expect((await as(srv, s, 'GET', '/spaces')).status).toBe(200);
  });

  it("records a user's write as theirs and the webhook says actor.kind = user", async () => {
    const hook = await srv.admin.post('/admin/webhooks', { url: rx.url('/user-writes'), events: ['page.created'], spaceSlug: 'team' });
    expect(hook.status).toBe(201);
    const s = await signIn(srv, 'alice');
    const put = await as(srv, s, 'PUT', '/pages/team/notes/by-alice', { title: 'By Alice', content: 'hello' });
    expect(put.status).toBe(201);
    const revs = await srv.admin.get('/pages/team/notes/by-alice/revisions');
    expect(JSON.stringify(revs.body)).toContain(s.principal.id);
    await rx.waitFor((r) => r.on('/user-writes').length > 0);
    const event = JSON.parse(rx.on('/user-writes')[0].body.toString());
    expect(event.actor).toEqual({ id: s.principal.id, kind: 'user' });
  });

  it('refuses a cookie write without the CSRF token, with a wrong one, or from another origin (403 csrf_failed)', async () => {
    const s = await signIn(srv, 'alice');
    const page = { title: 'X', content: 'x' };
    const cases: Record<string, string | undefined>[] = [
      { 'x-csrf-token': undefined },
      { 'x-csrf-token': 'wrong' },
      { 'x-csrf-token': s.csrf.slice(0, -1) + (s.csrf.endsWith('A') ? 'B' : 'A') },
      { origin: 'https://evil.example' },
      { origin: undefined },
      { origin: undefined, 'sec-fetch-site': 'cross-site' },
      { origin: srv.url, 'sec-fetch-site': 'same-site' },
    ];
    for (const headers of cases) {
      const r = await as(srv, s, 'PUT', '/pages/team/csrf/x', page, headers);
      expect(r.status, JSON.stringify(headers)).toBe(403);
      expect((await r.json()).code).toBe('csrf_failed');
    }
    expect((await srv.admin.get('/pages/team/csrf/x')).status).toBe(404);
    const viaFetchSite = await as(srv, s, 'PUT', '/pages/team/csrf/x', page, { origin: undefined, 'sec-fetch-site': 'same-origin' });
    expect(viaFetchSite.status).toBe(201);
    expect((await as(srv, s, 'DELETE', '/session', undefined, { 'x-csrf-token': undefined })).status).toBe(403);
    const crossSignIn = await signInRaw(srv, 'alice', 'correct horse', { origin: 'https://evil.example' });
    expect(crossSignIn.status).toBe(403);
  });

  it('leaves Bearer keys unaffected: no CSRF token needed, and a bad key is not rescued by a cookie', async () => {
    const r = await srv.admin.put('/pages/team/bearer/x', { title: 'B', content: 'b' });
    expect(r.status).toBe(201);
    const s = await signIn(srv, 'alice');
    const bad = await fetch(`${srv.url}/me`, { headers: { authorization: 'Bearer nope', cookie: s.cookie } });
    expect(bad.status).toBe(401);
  });

  it('signs out: DELETE /session clears the cookie and the session stops working', async () => {
    const s = await signIn(srv, 'alice');
    const out = await as(srv, s, 'DELETE', '/session');
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^kspace_session=; .*Max-Age=0/);
    expect((await as(srv, s, 'GET', '/me')).status).toBe(401);
  });

  it("lets an org admin end a user's sessions", async () => {
    const id = await createUser(srv, 'bruno');
    const a = await signIn(srv, 'bruno');
    const b = await signIn(srv, 'bruno');
    const other = await signIn(srv, 'alice');
    expect((await as(srv, other, 'DELETE', `/admin/principals/${id}/sessions`)).status).toBe(403);
    expect((await srv.admin.del(`/admin/principals/${id}/sessions`)).status).toBe(204);
    expect((await as(srv, a, 'GET', '/me')).status).toBe(401);
    expect((await as(srv, b, 'GET', '/me')).status).toBe(401);
    expect((await as(srv, other, 'GET', '/me')).status).toBe(200);
    expect((await srv.admin.del('/admin/principals/p_nope/sessions')).status).toBe(404);
  });

  it('changes a password: wrong current → 401, other sessions end, this one stays, the new password signs in', async () => {
    await createUser(srv, 'carla', 'first password');
    const here = await signIn(srv, 'carla', 'first password');
    const elsewhere = await signIn(srv, 'carla', 'first password');
    const wrong = await as(srv, here, 'POST', '/me/password', { currentPassword: 'nope nope', newPassword: 'second password' });
    expect(wrong.status).toBe(401);
    const short = await as(srv, here, 'POST', '/me/password', { currentPassword: 'first password', newPassword: 'short' });
    expect(short.status).toBe(400);
    expect((await short.json()).issues[0].key).toBe('newPassword');
    const ok = await as(srv, here, 'POST', '/me/password', { currentPassword: 'first password', newPassword: 'second password' });
    expect(ok.status).toBe(204);
    expect((await as(srv, elsewhere, 'GET', '/me')).status).toBe(401);
    expect((await as(srv, here, 'GET', '/me')).status).toBe(200);
    expect((await signInRaw(srv, 'carla', 'first password')).status).toBe(401);
    expect((await signInRaw(srv, 'carla', 'second password')).status).toBe(200);
    expect((await srv.admin.post('/me/password', { currentPassword: 'x', newPassword: 'yyyyyyyy' })).status).toBe(403);
  });

  it('rate-limits password changes per principal, right or wrong: 429 with Retry-After past the burst', async () => {
    await withServer({ SERVICE_SIGNIN_NAME_BURST: '3', SERVICE_SIGNIN_NAME_PER_MINUTE: '1' }, async (own) => {
      await createUser(own, 'pia', 'password 0');
      await createUser(own, 'quinn', 'password 0');
      const pia = await signIn(own, 'pia', 'password 0');
      const statuses: number[] = [];
      let limited: Response | undefined;
      for (let i = 0; i < 4; i++) {
        const r = await as(own, pia, 'POST', '/me/password', { currentPassword: `password ${i}`, newPassword: `password ${i + 1}` });
        statuses.push(r.status);
        if (r.status === 429) limited = r;
      }
      expect(statuses).toEqual([204, 204, 204, 429]); // SERVICE_SIGNIN_NAME_BURST=3, every change counted
      expect(limited!.headers.get('content-type')).toBe('application/problem+json');
      expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect((await limited!.json()).code).toBe('rate_limited');
      const quinn = await signIn(own, 'quinn', 'password 0');
      expect((await as(own, quinn, 'POST', '/me/password', { currentPassword: 'password 0', newPassword: 'password 1' })).status).toBe(204);
    });
  });

  it('rate-limits failed sign-ins per name: 429 with Retry-After, then recovers', async () => {
    await createUser(srv, 'dora');
    const statuses: number[] = [];
    let retryAfter = '';
    for (let i = 0; i < 4; i++) {
      const r = await signInRaw(srv, 'dora', 'wrong wrong');
      statuses.push(r.status);
      if (r.status === 429) {
        retryAfter = r.headers.get('retry-after') ?? '';
        expect((await r.json()).code).toBe('rate_limited');
      }
    }
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    // Even the right password waits: the bucket is empty.
    expect((await signInRaw(srv, 'dora', 'correct horse')).status).toBe(429);
    // Other names are not affected by dora's bucket.
    expect((await signInRaw(srv, 'alice', 'correct horse')).status).toBe(200);
    await new Promise((r) => setTimeout(r, Number(retryAfter) * 1000 + 50));
    expect((await signInRaw(srv, 'dora', 'correct horse')).status).toBe(200);
  });
});

describe('session expiry and the per-address limit', () => {
  it('brings a version 3 database forward: the sessions columns and index arrive, sign-in works', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-v3-'));
    const first = await startServer({}, { dataDir, keepData: true });
    await createUser(first, 'vera');
    await first.close();
    const oldDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-v3-old-'));
    makeOldDatabase(path.join(dataDir, 'kspace.db'), oldDir, './schema-v3.sql', 3);
    fs.rmSync(dataDir, { recursive: true, force: true });
    await withServer({}, { dataDir: oldDir }, async (srv) => {
      const cols = (srv.svc.db.prepare('PRAGMA table_info(sessions)').all() as Array<{ name: string }>).map((c) => c.name);
      expect(cols).toEqual(expect.arrayContaining(['last_seen_at', 'user_agent']));
      const s = await signIn(srv, 'vera');
      expect((await as(srv, s, 'GET', '/me')).status).toBe(200);
    });
  });

  it('signs in a user created offline with kspace admin create-principal --kind user --password-stdin', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-cli-user-'));
    const first = await startServer({}, { dataDir, keepData: true }); // bootstraps the data dir
    await first.close();
    const made = await runCliHere(
      ['admin', 'create-principal', '--data', dataDir, '--name', 'olga', '--kind', 'user', '--password-stdin'],
      {
        input: 'offline password\n',
      },
    );
    expect(made.code, made.stderr).toBe(0);
    await withServer({}, { dataDir }, async (srv) => {
      const s = await signIn(srv, 'olga', 'offline password');
      expect(s.principal).toMatchObject({ name: 'olga', kind: 'user' });
    });
  });

  it('ends a session idle for longer than SERVICE_SESSION_IDLE_MINUTES', async () => {
    await withServer({ SERVICE_SESSION_IDLE_MINUTES: String(0.6 / 60) }, async (srv) => {
      // an idle limit of 0.6 s
      await createUser(srv, 'ida');
      const s = await signIn(srv, 'ida');
      for (let i = 0; i < 4; i++) {
        // used every 0.25 s: stays
        expect((await as(srv, s, 'GET', '/me')).status).toBe(200);
        await new Promise((r) => setTimeout(r, 250));
      }
      await new Promise((r) => setTimeout(r, 800));
      expect((await as(srv, s, 'GET', '/me')).status).toBe(401);
    });
  });

  it('ends a session SERVICE_SESSION_MAX_DAYS after sign-in, used or not', async () => {
    await withServer({ SERVICE_SESSION_MAX_DAYS: String(1 / 86_400) }, async (srv) => {
      // a session limit of 1 s
      await createUser(srv, 'max');
      const s = await signIn(srv, 'max');
      expect((await as(srv, s, 'GET', '/me')).status).toBe(200);
      await new Promise((r) => setTimeout(r, 1100));
      expect((await as(srv, s, 'GET', '/me')).status).toBe(401);
    });
  });

  it('rate-limits failed sign-ins per client address across names', async () => {
    await withServer({ SERVICE_SIGNIN_ADDRESS_BURST: '2', SERVICE_SIGNIN_ADDRESS_PER_MINUTE: '1' }, async (srv) => {
      const statuses = [];
      for (const name of ['n1', 'n2', 'n3']) statuses.push((await signInRaw(srv, name, 'whatever1')).status);
      expect(statuses).toEqual([401, 401, 429]);
    });
  });
});

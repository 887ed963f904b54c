import { describe, expect, it } from 'vitest';
import { useServer } from '../support/fixture.ts';

// API defects of issue 18 finding 8: the ACL answers what was PUT; a metadata patch body must be
// an object; every 400 message is written for people, not raw validator text.

const { srv, bob, carol } = useServer({
  agents: ['bob', 'carol'],
  spaces: [{ slug: 'kb', name: 'KB' }],
  pages: [['kb/p', { title: 'P' }]],
});

describe('GET …/acl', () => {
  it('answers what was PUT: a writer is listed in read too (write implies read)', async () => {
    const put = await srv.admin.put('/pages/kb/p/acl', { read: [bob.id, carol.id], write: [carol.id] });
    expect(put.status).toBe(200);
    const got = await srv.admin.get('/pages/kb/p/acl');
    expect(got.body).toEqual({ restricted: true, read: [bob.id, carol.id].sort(), write: [carol.id] });
    expect(put.body).toEqual(got.body);
    // A writer named only in write is a reader as well.
    await srv.admin.put('/pages/kb/p/acl', { write: [bob.id] });
    expect((await srv.admin.get('/pages/kb/p/acl')).body).toEqual({ restricted: true, read: [bob.id], write: [bob.id] });
    await srv.admin.del('/pages/kb/p/acl');
  });
});

describe('PATCH …/metadata', () => {
  it.each([
    ['an array', [{ set: { a: 1 } }]],
    ['a string', 'set'],
    ['a number', 3],
    ['null', null],
  ])('refuses %s as the body with 400 naming body', async (_name, body) => {
    const r = await srv.admin.patch('/pages/kb/p/metadata', JSON.stringify(body));
    expect(r.status).toBe(400);
    expect(r.body.issues).toEqual([{ key: 'body', code: 'type', message: 'the body must be a JSON object' }]);
  });
});

describe('400 messages', () => {
  it.each([
    ['PATCH', '/pages/kb/p/metadata', { sett: { a: 1 } }, 'sett', 'unknown field `sett`; expected `set` or `appendUnique`'],
    [
      'PUT',
      '/pages/kb/p',
      { title: 'P', contnet: 'x' },
      'contnet',
      'unknown field `contnet`; expected one of `title`, `content`, `frontmatter`, `template`, `metadata`, `baseVersion`',
    ],
    ['PUT', '/pages/kb/p/acl', { reed: [] }, 'reed', 'unknown field `reed`; expected `read` or `write`'],
    ['POST', '/spaces', { slug: 'x1', name: 'X', descripton: 'd' }, 'descripton', 'unknown field `descripton`'],
  ])('%s %s with a typo names the field and the allowed ones', async (method, url, body, key, message) => {
    const r = await srv.admin.req(method, url, body);
    expect(r.status).toBe(400);
    const issue = r.body.issues.find((i: { key: string }) => i.key === key);
    expect(issue).toMatchObject({ code: 'undeclared' });
    expect(issue.message).toContain(message);
    expect(r.text).not.toMatch(/Invalid (key|type)|Expected never|received "/);
  });

  it.each([
    ['PUT', '/pages/kb/p', { title: 5 }, 'title', 'must be a string'],
    ['PUT', '/pages/kb/p', { title: 'P', frontmatter: [] }, 'frontmatter', 'must be an object'],
    ['PUT', '/pages/kb/p', { title: 'P', baseVersion: 'x' }, 'baseVersion', 'must be a number'],
    ['PUT', '/pages/kb/p', { title: 'P', baseVersion: -1 }, 'baseVersion', 'at least 0'],
    ['PUT', '/pages/kb/p', { title: 'P', baseVersion: 1.5 }, 'baseVersion', 'whole number'],
    ['PUT', '/pages/kb/p/acl', { read: 'bob' }, 'read', 'must be a list'],
    ['PUT', '/pages/kb/p/acl', { read: [1] }, 'read.0', 'must be a string'],
    ['PUT', '/pages/kb/p', { title: 'P', template: '' }, 'template', 'at least 1 character'],
  ])('%s %s %j: %s → "%s"', async (method, url, body, key, message) => {
    const r = await srv.admin.req(method, url, body);
    expect(r.status).toBe(400);
    const issue = r.body.issues.find((i: { key: string }) => i.key === key);
    expect(issue?.message).toContain(message);
    expect(r.text).not.toMatch(/Invalid (key|type|length|value)|Expected |received /);
  });
});

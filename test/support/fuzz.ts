// Fuzzes every operation of /openapi.json against a running test server: path params, queries,
// headers and bodies generated from the declared schemas (values they accept and values breaking
// one declared constraint: test/support/fuzz-schema.ts), from known fixtures and from nasty text,
// sent as an org admin, a member, an outsider (no access to the space `secret`) and nobody. Every
// answer must be < 500 and a status the operation declares; every 4xx problem+json with a code of
// the catalogue and its own status. 2xx bodies are checked by the server itself
// (SERVICE_VALIDATE_RESPONSES=1: a violation is a 500). Used by test/api/fuzz.test.ts and
// `npm run fuzz`.
import http from 'node:http';
import fc from 'fast-check';
import { ERROR_CODES } from '../../src/domain/errors.ts';
import { asParam, invalid, valid, type JsonSchema } from './fuzz-schema.ts';
import { newAgent, type TestServer } from './server.ts';

type Param = {
  name: string;
  in: string;
  required?: boolean;
  schema: JsonSchema & { contentMediaType?: string; contentSchema?: JsonSchema };
};
type Operation = {
  method: string;
  path: string;
  op: {
    parameters?: Param[];
    requestBody?: { content: Record<string, { example?: unknown; schema?: JsonSchema }> };
    responses: Record<string, unknown>;
  };
};
export type FuzzWorld = {
  srv: TestServer;
  callers: Record<string, string | undefined>;
  operations: Operation[];
  known: Record<string, string[]>;
  /** How often each operation answered each status (to see that generation reaches success too). */
  statuses: Record<string, Record<number, number>>;
};
export type FuzzFailure = { request: string; status: number; body: string; why: string };

/** The server's fixtures: spaces `wiki` (everyone writes) and `secret` (nobody but admins), pages, a webhook. */
export async function buildWorld(srv: TestServer): Promise<FuzzWorld> {
  const member = await newAgent(srv, 'fuzz-member');
  const outsider = await newAgent(srv, 'fuzz-outsider');
  const ok = (r: { status: number; text: string }, what: string) => {
    if (r.status >= 300) throw new Error(`${what}: ${r.status} ${r.text}`);
  };
  ok(await srv.admin.post('/spaces', { slug: 'wiki', name: 'Wiki' }), 'wiki');
  ok(await srv.admin.post('/spaces', { slug: 'secret', name: 'Secret', defaultAccess: 'none' }), 'secret');
  for (const [space, path] of [
    ['wiki', 'a/b'],
    ['wiki', 'start'],
    ['secret', 'hr/salaries'],
    ['wiki', 'templates/task'],
  ]) {
    ok(
      await srv.admin.put(`/pages/${space}/${path}`, {
        title: path,
        content: `[[link]] [x](/pages/wiki/start) words ${path}`,
        metadata: { stage: 'draft', n: 1, tags: ['x'] },
        ...(path === 'templates/task' ? { frontmatter: { metadataSchema: { fields: [{ key: 'stage', type: 'string' }] } } } : {}),
      }),
      path,
    );
  }
  ok(await srv.admin.put('/pages/wiki/a/b/acl', { read: [member.id], write: [] }), 'acl');
  // `/files/wiki/a/b` is the file `b` of page `a` (and `/files/wiki/hr/salaries` a file of `secret`'s `hr`: absent).
  ok(await srv.admin.put('/pages/wiki/a', { title: 'A' }), 'page a');
  const file = await fetch(`${srv.url}/files/wiki/a/b`, {
    method: 'PUT',
    body: 'hello',
    headers: { authorization: `Bearer ${srv.admin.key}` },
  });
  if (file.status !== 201) throw new Error(`file: ${file.status} ${await file.text()}`);
  const hook = await srv.admin.post('/admin/webhooks', { url: 'https://hooks.example.invalid/x', events: ['page.created'] });
  const doc = await srv.admin.get('/openapi.json');
  const operations: Operation[] = Object.entries(doc.body.paths as Record<string, Record<string, Operation['op']>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([m, op]) => ({ method: m.toUpperCase(), path, op })),
  );
  return {
    srv,
    callers: { admin: srv.admin.key, member: member.key, outsider: outsider.key, nobody: undefined },
    operations,
    statuses: {},
    known: {
      space: ['wiki', 'secret', '~fuzz-member', 'nope'],
      slug: ['wiki', 'secret', '~fuzz-member', 'nope'],
      path: ['a/b', 'start', 'hr/salaries', 'templates/task', 'x/y/z'],
      version: ['1', '2', '0', '99'],
      id: [hook.body?.id ?? 'wh_x', member.id, 'built-in', 'x'],
      type: ['task', 'nope'],
      source: ['built-in', 'org', 'remote', 'x'],
    },
  };
}

const nasty = fc.constantFrom(
  '',
  ' ',
  '.',
  '..',
  '%',
  '%ZZ',
  '~',
  '__proto__',
  'constructor',
  '\u200b',
  'a\u0000b',
  'é',
  'x'.repeat(600),
  '../../etc',
  'revisions',
  '-1',
  '1e3',
  'null',
  '[]',
);
const text = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 }), nasty);

/** Some of the generators, each with its weight, as one arbitrary. */
function weighted<T>(...parts: Array<[number, fc.Arbitrary<T>[]]>): fc.Arbitrary<T> {
  return fc.oneof(...parts.flatMap(([weight, arbs]) => (arbs.length ? [{ weight, arbitrary: fc.oneof(...arbs) }] : [])));
}

function paramValue(p: Param, known: Record<string, string[]>): fc.Arbitrary<string> {
  const encoded = (s: string) => (p.name === 'path' ? s.split('/').map(encodeURIComponent).join('/') : encodeURIComponent(s));
  return weighted<string>(
    [4, [fc.constantFrom(...(known[p.name] ?? ['x'])).map(encoded)]],
    [2, [valid(p.schema).map((x) => encoded(asParam(x)))]],
    [1, invalid(p.schema).map((a) => a.map((x) => encoded(asParam(x))))],
    [1, [text.map(encoded)]],
    [1, [fc.constantFrom('%ZZ', '%E0%A4', '%2F', '%00', 'a%2F..%2Fb', '..', '.')]],
  );
}

/** A query parameter: from its schema (a JSON one, like `filters`, from its contentSchema), broken, or anything. */
function queryArb(p: Param): fc.Arbitrary<string> {
  const json = p.schema.contentMediaType === 'application/json' && p.schema.contentSchema;
  return weighted<string>(
    [3, [json ? valid(json).map((x) => JSON.stringify(x)) : valid(p.schema).map(asParam)]],
    [1, json ? invalid(json).map((a) => a.map((x) => JSON.stringify(x))) : invalid(p.schema).map((a) => a.map(asParam))],
    [2, [queryValue]],
  );
}

/** A declared request header (MCP's Accept): mostly its example, sometimes one it does not accept. */
function headerArb(p: Param): fc.Arbitrary<string> {
  const good = p.schema.example === undefined ? valid(p.schema).map(asParam) : fc.constant(String(p.schema.example));
  return weighted<string>([6, [good]], [1, [fc.constantFrom('application/json', 'text/event-stream', '*/*', '')]]);
}

const queryValue = fc.oneof(
  fc.constantFrom(
    '',
    '0',
    '1',
    '50',
    '200',
    '201',
    '-1',
    '1.5',
    'true',
    'false',
    'skip',
    'overwrite',
    'asc',
    'desc',
    'stage',
    'wiki',
    'secret',
  ),
  fc.constantFrom(
    '[{"key":"stage","op":"eq","value":"draft"}]',
    '[{"key":"n","op":"gt","value":0}]',
    '[{"key":"x","op":"in","value":[1,"a",true]}]',
    '{"a":1}',
    '[',
    'eyJ4IjoxfQ',
    Buffer.from('[1,2]').toString('base64url'),
  ),
  fc.string({ maxLength: 30 }),
  fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
  fc.constantFrom('t* '.repeat(40), 'a OR b NOT c', '"unterminated', 'x'.repeat(2000)),
);

/** Mutates an example body: drops, replaces or adds fields, or nests it. */
function mutated(example: unknown): fc.Arbitrary<unknown> {
  if (!example || typeof example !== 'object' || Array.isArray(example)) return fc.constant(example);
  const keys = Object.keys(example);
  return fc
    .record({
      drop: fc.subarray(keys),
      replace: fc.dictionary(fc.constantFrom(...keys, 'extra', '__proto__'), fc.oneof(fc.jsonValue({ maxDepth: 3 }), text), { maxKeys: 3 }),
    })
    .map(({ drop, replace }) => {
      const out: Record<string, unknown> = { ...(example as Record<string, unknown>) };
      for (const k of drop) delete out[k];
      for (const [k, v] of Object.entries(replace))
        Object.defineProperty(out, k, { value: v, enumerable: true, configurable: true, writable: true });
      return out;
    });
}

type Req = { caller: string; url: string; body?: string; contentType?: string; headers: Record<string, string> };

function requestArb(o: Operation, world: FuzzWorld): fc.Arbitrary<Req> {
  const params = (o.op.parameters ?? []).filter((p) => p.in === 'path');
  const queries = (o.op.parameters ?? []).filter((p) => p.in === 'query');
  const declaredHeaders = (o.op.parameters ?? []).filter((p) => p.in === 'header');
  const example = o.op.requestBody?.content['application/json']?.example;
  const schema = o.op.requestBody?.content['application/json']?.schema;
  const raw = o.op.requestBody && !o.op.requestBody.content['application/json'];
  const body: fc.Arbitrary<{ body?: string; contentType?: string }> = raw
    ? fc.record({
        body: fc.string({ maxLength: 200 }),
        contentType: fc.constantFrom('application/octet-stream', 'image/png', 'text/html', 'x', ''),
      })
    : o.op.requestBody
      ? fc.oneof(
          { weight: 3, arbitrary: fc.constant(example).map((b) => ({ body: JSON.stringify(b) })) },
          { weight: 4, arbitrary: mutated(example).map((b) => ({ body: JSON.stringify(b) })) },
          { weight: 3, arbitrary: (schema ? valid(schema) : fc.constant(example)).map((b) => ({ body: JSON.stringify(b) })) },
          {
            weight: 2,
            arbitrary: weighted<unknown>([1, schema ? invalid(schema) : []], [1, [mutated(example)]]).map((b) => ({
              body: JSON.stringify(b),
            })),
          },
          { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((b) => ({ body: JSON.stringify(b) })) },
          {
            weight: 1,
            arbitrary: fc.constantFrom('', '{', 'null', '[]', '{"a":' + '['.repeat(100) + ']'.repeat(100) + '}').map((b) => ({ body: b })),
          },
          { weight: 1, arbitrary: fc.constant({ body: 'title=x', contentType: 'application/x-www-form-urlencoded' }) },
        )
      : fc.constant({});
  return fc
    .record({
      caller: fc.constantFrom('admin', 'member', 'outsider', 'outsider', 'nobody'),
      params: fc.tuple(...params.map((p) => paramValue(p, world.known))),
      // A required parameter is left out now and then (the server must refuse that with a 400).
      query: fc.tuple(...queries.map((q) => fc.option(queryArb(q), { nil: undefined, freq: q.required ? 8 : 2 }))),
      declared: fc.tuple(...declaredHeaders.map(headerArb)),
      extra: fc.option(fc.tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 })), { nil: undefined, freq: 5 }),
      body,
      headers: fc.record(
        {
          'if-match': fc.constantFrom('"1"', 'W/"2"', 'x', '"999"'),
          accept: fc.constantFrom('application/json', 'text/markdown', '*/*'),
          host: fc.constantFrom('x:99999', 'a b', '[::1', '%', 'localhost:1'),
        },
        { requiredKeys: [] },
      ),
    })
    .map(({ caller, params: values, query, declared, extra, body: b, headers }) => {
      declaredHeaders.forEach((h, i) => {
        headers = { ...headers, [h.name.toLowerCase()]: declared[i] };
      });
      let url = o.path;
      params.forEach((p, i) => {
        url = url.replace(`{${p.name}}`, values[i]);
      });
      const qs = new URLSearchParams();
      queries.forEach((q, i) => {
        if (query[i] !== undefined) qs.append(q.name, query[i]!);
      });
      if (extra) qs.append(extra[0], extra[1]);
      const s = qs.toString();
      return { caller, url: s ? `${url}?${s}` : url, ...b, headers: headers as Record<string, string> };
    });
}

const agent = new http.Agent({ keepAlive: true });

/** One raw HTTP request (node:http sends the URL and the Host header as given; fetch would normalise them). */
function send(
  base: string,
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: Headers; text: string }> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: url, method, headers, agent }, (res) => {
      // An event stream (GET /changes/stream) does not end: its status and headers are the answer.
      if ((res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
        const h = new Headers({ 'content-type': res.headers['content-type']! });
        res.destroy();
        resolve({ status: res.statusCode ?? 0, headers: h, text: '' });
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h.set(k, v);
        resolve({ status: res.statusCode ?? 0, headers: h, text: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Sends one request and says what is wrong with the answer, if anything. */
async function check(world: FuzzWorld, o: Operation, r: Req): Promise<FuzzFailure | null> {
  const headers: Record<string, string> = { ...r.headers };
  const key = world.callers[r.caller];
  if (key) headers.authorization = `Bearer ${key}`;
  if (r.body !== undefined) headers['content-type'] = r.contentType ?? 'application/json';
  let res: Awaited<ReturnType<typeof send>>;
  try {
    res = await send(world.srv.url, o.method, r.url, headers, r.body);
  } catch (err) {
    return {
      request: `${r.caller} ${o.method} ${r.url} ${JSON.stringify(headers)}`,
      status: 0,
      body: String(err),
      why: 'no answer (the connection closed)',
    };
  }
  const text = res.text;
  const tally = (world.statuses[`${o.method} ${o.path}`] ??= {});
  tally[res.status] = (tally[res.status] ?? 0) + 1;
  const request = `${r.caller} ${o.method} ${r.url}${r.body !== undefined ? ` ${r.body.slice(0, 300)}` : ''}`;
  const fail = (why: string) => ({ request, status: res.status, body: text.slice(0, 500), why });
  if (res.status >= 500) return fail('5xx');
  // A `.` or `..` segment (also as %2E) is removed from the URL before routing (WHATWG URL), so the
  // request addresses another path (`/spaces/..` is `/`): its status is not this operation's.
  const dotted = /\/(?:\.|%2e){1,2}(?=\/|\?|$)/i.test(r.url);
  if (!dotted && !Object.hasOwn(o.op.responses, String(res.status)))
    return fail(`status ${res.status} is not declared for ${o.method} ${o.path}`);
  if (res.status >= 400 && !(o.path === '/mcp' && (res.headers.get('content-type') ?? '').startsWith('application/json'))) {
    if (res.headers.get('content-type') !== 'application/problem+json') return fail('a 4xx that is not problem+json');
    let p: { code?: string; status?: number };
    try {
      p = JSON.parse(text);
    } catch {
      return fail('a problem that is not JSON');
    }
    if (!ERROR_CODES.includes(p.code as never)) return fail(`code ${p.code} is not in the catalogue`);
    if (p.status !== res.status) return fail('problem.status differs from the HTTP status');
  }
  return null;
}

/** Runs `runs` generated requests per operation; returns the failures (fast-check shrinks each to its smallest). */
export async function fuzzOperations(
  world: FuzzWorld,
  opts: {
    runs: number;
    seed?: number;
    only?: (o: Operation) => boolean;
    onOperation?: (name: string, ms: number, failed: boolean) => void;
  },
): Promise<{ failures: FuzzFailure[]; requests: number; msByOperation: Record<string, number> }> {
  const failures: FuzzFailure[] = [];
  const msByOperation: Record<string, number> = {};
  let requests = 0;
  // Deletes last, so the fixtures (the webhook, the pages) serve the other operations first.
  const order = (o: Operation) => (o.method === 'DELETE' ? 1 : 0);
  for (const o of world.operations.filter(opts.only ?? (() => true)).sort((a, b) => order(a) - order(b))) {
    const started = performance.now();
    const result = await fc.check(
      fc.asyncProperty(requestArb(o, world), async (r) => {
        requests++;
        return (await check(world, o, r)) === null;
      }),
      { numRuns: opts.runs, seed: opts.seed },
    );
    if (result.failed && result.counterexample) {
      const again = await check(world, o, result.counterexample[0]);
      failures.push(
        again ?? {
          request: JSON.stringify(result.counterexample[0]),
          status: 0,
          body: String(result.errorInstance ?? ''),
          why: 'failed once, passed again',
        },
      );
    }
    msByOperation[`${o.method} ${o.path}`] = Math.round(performance.now() - started);
    opts.onOperation?.(`${o.method} ${o.path}`, msByOperation[`${o.method} ${o.path}`], result.failed);
  }
  return { failures, requests, msByOperation };
}

import { describe, expect, it } from 'vitest';
import { chunked, rawRequest, type RawExchange } from '../support/raw-http.ts';
import { ADMIN_KEY, client, newAgent } from '../support/server.ts';
import { useMade } from '../support/fixture.ts';
import { useReplicaPair } from '../support/replica.ts';
import { waitFor } from '../support/wait.ts';

// Request smuggling through a read replica (docs/security.md, "Forwarding through a replica"):
// raw requests with ambiguous or unusual framing sent to a replica in front of a primary. Each
// is refused before anything is forwarded, or forwarded with framing kspace sets; a canary
// request from a second client always gets its own answer, and the primary's request log holds
// exactly the requests the replica forwarded (their ids are the replica's X-Request-Id).

let mallory: string;
const { primary, replica } = useReplicaPair({
  primaryEnv: { SERVICE_TRUST_PROXY: '1' },
  setup: async (primary) => {
    mallory = (await newAgent(primary, 'mallory')).key!;
  },
});
const canaryClient = useMade('the canary client', async () => client(replica.url, ADMIN_KEY));

const HOST = 'Host: kspace.test\r\n';
const AUTH = () => `Authorization: Bearer ${mallory}\r\n`;
// What a smuggler hides in a body: an unfinished upload that would swallow the next request on
// the same upstream connection (its Authorization header included) as the page's content.
const SMUGGLED = () =>
  `PUT /pages/eng/captured HTTP/1.1\r\n${HOST}${AUTH()}Content-Type: application/json\r\nContent-Length: 400\r\n\r\n{"title":"Captured","content":"`;

// A whole request hidden in a body: run by the primary if it ever reads the body as a request.
const HIDDEN = () => `DELETE /pages/eng/canary-1 HTTP/1.1\r\n${HOST}${AUTH()}\r\n`;

let canaries = 0;
/** A write from a second client (its own connection): it must get its own answer, whole. */
async function canary(): Promise<void> {
  const n = ++canaries;
  const r = await canaryClient.put(`/pages/eng/canary-${n}`, { title: `Canary ${n}`, content: `canary text ${n}` });
  expect(r.status, r.text).toBe(201);
  expect(r.body.path).toBe(`canary-${n}`);
  expect(r.text).not.toContain('Captured');
  const back = await canaryClient.get(`/pages/eng/canary-${n}`, { 'x-service-min-txid': r.headers.get('x-service-txid')! });
  expect(back.body.content).toBe(`canary text ${n}`);
}

/**
 * Runs `attack` beside two canaries (one during, one after), then checks the primary's request
 * log against the replica's: exactly the requests the replica forwarded (the same ids), and
 * `forwarded` of the attack's answers among them (by their X-Request-Id).
 */
async function check(attack: () => Promise<RawExchange>, forwarded: number): Promise<RawExchange> {
  const p0 = primary.requests.length;
  const r0 = replica.requests.length;
  const [x] = await Promise.all([attack(), canary()]);
  await canary();
  const sent = () =>
    replica.requests
      .slice(r0)
      .filter((r) => r.route === '(forwarded)')
      .map((r) => r.id)
      .sort();
  const got = () =>
    primary.requests
      .slice(p0)
      .map((r) => r.id)
      .sort();
  await waitFor(() => sent().every((id) => got().includes(id)), 5000, 20);
  await new Promise((r) => setTimeout(r, 200)); // anything more the primary would log
  expect(got()).toEqual(sent());
  const answered = x.responses.map((r) => r.headers['x-request-id']).filter((id) => id && got().includes(id));
  expect(answered.length, x.text).toBe(forwarded);
  expect((await primary.admin.get('/pages/eng/captured')).status).toBe(404);
  return x;
}

/** Sends `bytes` and waits for the server to close the connection (or 5 s). */
const untilClosed = (bytes: string) => () => rawRequest(replica.url, bytes, { responses: 99, timeoutMs: 5000 });

function expectRefused(x: RawExchange): void {
  expect(x.responses.length, x.text).toBe(1);
  expect(x.responses[0].status).toBe(400);
  expect(x.responses[0].headers['content-type']).toBe('application/problem+json');
  expect(x.responses[0].headers.connection).toBe('close');
  expect(x.closed).toBe(true);
}

describe('request smuggling through a replica', () => {
  const body = JSON.stringify({ slug: 'smuggled', name: 'S' });
  const post = () => `POST /spaces HTTP/1.1\r\n${HOST}${AUTH()}Content-Type: application/json\r\n`;

  it('CL.TE: Content-Length and Transfer-Encoding together are refused with 400 problem+json', async () => {
    const x = await check(
      untilClosed(`${post()}Content-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n\r\n${chunked(body)}${SMUGGLED()}`),
      0,
    );
    expectRefused(x);
  });

  it('TE.CL: the same in the other order', async () => {
    const x = await check(untilClosed(`${post()}Transfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n${chunked(body)}${SMUGGLED()}`), 0);
    expectRefused(x);
  });

  const obfuscations = [
    'Transfer-Encoding: xchunked',
    'Transfer-Encoding: chunked, identity',
    'Transfer-Encoding: identity, chunked',
    'Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked',
    'Transfer-Encoding: chunked\r\nTransfer-encoding: cow',
    'Transfer-Encoding : chunked',
    'Transfer-Encoding: \x0bchunked',
    'Transfer-Encoding:\r\n chunked',
    'X-Padding: 1\r\n Transfer-Encoding: chunked',
    'Transfer-Encoding: chunked\r\nContent-Length: 0',
    'Content-Length: 5\r\nContent-Length: 6',
    'Content-Length: 5, 5',
    'Content-Length: +5',
  ];
  it.each(obfuscations)('TE.TE and double lengths: %j is refused before anything is forwarded', async (te) => {
    const x = await check(untilClosed(`${post()}${te}\r\n\r\n${chunked(body)}${SMUGGLED()}`), 0);
    expectRefused(x);
  });

  it.each(['DELETE', 'OPTIONS', 'TRACE'])('a chunked %s is forwarded chunked: its body never becomes a request', async (method) => {
    const x = await check(
      () =>
        rawRequest(
          replica.url,
          `${method} /pages/eng/nothing HTTP/1.1\r\n${HOST}${AUTH()}Transfer-Encoding: chunked\r\n\r\n${chunked(HIDDEN() + SMUGGLED())}`,
        ),
      1,
    );
    expect(x.responses.length, x.text).toBe(1);
    expect(x.responses[0].status).not.toBe(400);
    expect(x.responses[0].headers['content-type']).toBe('application/problem+json');
  });

  it('a chunked body with whitespace or capitals in Transfer-Encoding is still one request', async () => {
    const x = await check(() => rawRequest(replica.url, `${post()}Transfer-Encoding:\tCHUNKED \r\n\r\n${chunked(body)}`), 1);
    expect(x.responses[0].status, x.text).toBe(201);
  });

  it('a GET or HEAD with a body is refused, even one that X-Service-Min-Txid would send to the primary', async () => {
    for (const head of ['GET', 'HEAD']) {
      for (const framing of [`Content-Length: ${SMUGGLED().length}`, 'Transfer-Encoding: chunked']) {
        const rest = framing.startsWith('Content') ? SMUGGLED() : chunked(SMUGGLED());
        const t0 = Date.now();
        const x = await check(
          untilClosed(`${head} /pages/eng/nothing HTTP/1.1\r\n${HOST}${AUTH()}X-Service-Min-Txid: 999999999\r\n${framing}\r\n\r\n${rest}`),
          0,
        );
        if (head === 'GET') expectRefused(x);
        else expect(x.text).toMatch(/^HTTP\/1\.1 400 [^]*content-type: application\/problem\+json/i);
        expect(x.closed).toBe(true);
        expect(Date.now() - t0).toBeLessThan(1900); // refused at once, not after SERVICE_REPLICA_WAIT_MS
      }
    }
  });

  it('pipelined requests on one connection each get their own answer, in order', async () => {
    const page = JSON.stringify({ title: 'Pipelined', content: 'one' });
    const x = await check(
      () =>
        rawRequest(
          replica.url,
          [
            `PUT /pages/eng/pipelined HTTP/1.1\r\n${HOST}${AUTH()}Content-Type: application/json\r\nContent-Length: ${page.length}\r\n\r\n${page}`,
            `DELETE /pages/eng/nothing HTTP/1.1\r\n${HOST}${AUTH()}Transfer-Encoding: chunked\r\n\r\n${chunked(SMUGGLED())}`,
            `OPTIONS /pages/eng/nothing HTTP/1.1\r\n${HOST}${AUTH()}Content-Length: 3\r\n\r\nabc`,
            `GET /spaces/eng HTTP/1.1\r\n${HOST}${AUTH()}\r\n`,
          ].join(''),
          { responses: 4 },
        ),
      3,
    );
    expect(
      x.responses.map((r) => r.status),
      x.text,
    ).toEqual([201, 404, x.responses[2].status, 200]);
    expect(x.responses[2].status).not.toBe(400);
    expect(JSON.parse(x.responses[0].body).path).toBe('pipelined');
    expect(JSON.parse(x.responses[3].body).slug).toBe('eng');
  });

  it('a body cut short, or answered before it is whole, never leaves a half request on an upstream connection', async () => {
    const put = (len: number, key: string) =>
      `PUT /pages/eng/short HTTP/1.1\r\n${HOST}Authorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${len}\r\n\r\n`;
    // Cut short: the client hangs up after part of its body.
    const cut = await check(() => rawRequest(replica.url, `${put(4000, mallory)}{"title":"x","content":"`, { timeoutMs: 300 }), 0);
    expect(cut.responses).toEqual([]);
    // Answered early: a wrong key is refused by the primary before the body is read.
    const early = await check(
      () =>
        rawRequest(replica.url, `${put(400_000, 'ks_wrong_key_0123456789abcdef')}{"title":"x","content":"`, { more: ['a'.repeat(1000)] }),
      1,
    );
    expect(early.responses[0].status, early.text).toBe(401);
  });
});

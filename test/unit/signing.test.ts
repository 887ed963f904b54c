import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  newWebhookSecret,
  serviceSignature,
  standardWebhooksSignature,
  verifyServiceSignature,
} from '../../src/domain/webhooks/signing.ts';

describe('serviceSignature', () => {
  it.each([
    // GitHub's documented vector.
    ["It's a Secret to Everybody", 'Hello, World!', '757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17'],
    // RFC 4231 test case 2 (key "Jefe").
    ['Jefe', 'what do ya want for nothing?', '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843'],
  ])('secret %j, body %j', (secret, body, hex) => {
    expect(serviceSignature(secret, body)).toBe(`sha256=${hex}`);
    expect(serviceSignature(secret, Buffer.from(body, 'utf8'))).toBe(`sha256=${hex}`);
  });

  it('keys with the whole whsec_ string as UTF-8, not its decoded bytes', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update('{}').digest('hex');
    expect(serviceSignature(secret, '{}')).toBe(`sha256=${expected}`);
  });

  it('signs the raw bytes of non-ASCII bodies', () => {
    const body = '{"title":"Grüße ✓"}';
    const expected = createHmac('sha256', 'k').update(Buffer.from(body, 'utf8')).digest('hex');
    expect(serviceSignature('k', body)).toBe(`sha256=${expected}`);
  });
});

describe('standardWebhooksSignature', () => {
  it.each([
    // The Standard Webhooks reference vector.
    [
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    ],
    // Same key without the prefix: the reference libraries accept both.
    [
      'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    ],
  ])('secret %s, id %s, ts %i', (secret, id, ts, body, expected) => {
    expect(standardWebhooksSignature(secret, id, ts, body)).toBe(expected);
  });

  it.each([
    ['id', 'msg_other', 1614265330, '{"test": 2432232314}'],
    ['timestamp', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265331, '{"test": 2432232314}'],
    ['body', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232315}'],
  ])('changes when the %s changes', (_part, id, ts, body) => {
    const sig = standardWebhooksSignature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', id, ts, body);
    expect(sig).not.toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
    expect(sig).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
  });
});

describe('verifyServiceSignature', () => {
  const secret = "It's a Secret to Everybody";
  const good = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';

  it.each([
    [good, 'Hello, World!', true],
    [good, Buffer.from('Hello, World!'), true],
    [good, 'Hello, World?', false],
    [good.slice(0, -1) + '8', 'Hello, World!', false],
    [good.toUpperCase(), 'Hello, World!', false],
    [good.slice(0, -2), 'Hello, World!', false],
    [good + '00', 'Hello, World!', false],
    [good.slice('sha256='.length), 'Hello, World!', false],
    ['', 'Hello, World!', false],
    ['sha256=ü' + good.slice(8), 'Hello, World!', false],
  ])('header %j over %j → %s', (header, body, expected) => {
    expect(verifyServiceSignature(secret, body, header)).toBe(expected);
  });

  it('accepts exactly its own signatures', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (s, body, other) => {
        expect(verifyServiceSignature(s, body, serviceSignature(s, body))).toBe(true);
        if (other !== body) expect(verifyServiceSignature(s, other, serviceSignature(s, body))).toBe(false);
      }),
    );
  });
});

describe('newWebhookSecret', () => {
  it('is whsec_ + 44 base64 characters of 32 bytes', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
  });

  it('differs every time', () => {
    const secrets = new Set(Array.from({ length: 50 }, () => newWebhookSecret()));
    expect(secrets.size).toBe(50);
  });

  it('works as a Standard Webhooks key', () => {
    const secret = newWebhookSecret();
    const key = Buffer.from(secret.slice(6), 'base64');
    const expected = createHmac('sha256', key).update('m.1.{}').digest('base64');
    expect(standardWebhooksSignature(secret, 'm', 1, '{}')).toBe(`v1,${expected}`);
  });
});

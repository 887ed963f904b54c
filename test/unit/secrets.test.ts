import { describe, expect, it } from 'vitest';
import { createSecretBox } from '../../src/domain/secrets.ts';

const KEY = 'k'.repeat(32);
const OTHER_KEY = 'k'.repeat(31) + 'l';

describe('createSecretBox', () => {
  it.each([
    ['', true],
    ['short', true],
    ['x'.repeat(31), true],
    ['é'.repeat(31), true],
    ['x'.repeat(32), false],
    ['é'.repeat(32), false],
    ['a-long-random-settings-key-0123456789', false],
  ])('setting of %j throws: %s', (setting, throws) => {
    if (throws) expect(() => createSecretBox(setting)).toThrow(/at least 32/);
    else expect(() => createSecretBox(setting)).not.toThrow();
  });

  it.each([['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'], [''], ['ünïcödé ✓ 🔑'], ['x'.repeat(10_000)]])('round-trips %j', (plain) => {
    const box = createSecretBox(KEY);
    const sealed = box.seal(plain);
    expect(sealed[0]).toBe(1);
    expect(sealed.length).toBe(1 + 12 + 16 + Buffer.byteLength(plain, 'utf8'));
    expect(box.open(sealed)).toBe(plain);
    expect(createSecretBox(KEY).open(sealed)).toBe(plain);
  });

  it('uses a fresh nonce for every seal', () => {
    const box = createSecretBox(KEY);
    const a = box.seal('same');
    const b = box.seal('same');
    expect(a.subarray(1, 13).equals(b.subarray(1, 13))).toBe(false);
    expect(a.equals(b)).toBe(false);
  });

  it('does not contain the plaintext', () => {
    const plain = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const sealed = createSecretBox(KEY).seal(plain);
    expect(sealed.includes(Buffer.from(plain))).toBe(false);
    expect(sealed.includes(Buffer.from('MfKQ9r8G'))).toBe(false);
    expect(sealed.toString('latin1')).not.toContain('whsec_');
  });

  it.each([
    ['version byte', 0],
    ['nonce', 5],
    ['tag', 20],
    ['ciphertext', 35],
    ['last byte', -1],
  ])('throws when the %s is tampered with', (_part, index) => {
    const box = createSecretBox(KEY);
    const sealed = box.seal('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    const i = index < 0 ? sealed.length + index : index;
    sealed[i] = sealed[i]! ^ 0x01;
    expect(() => box.open(sealed)).toThrow();
  });

  it.each([
    ['empty', Buffer.alloc(0)],
    ['truncated header', Buffer.alloc(28, 1)],
  ])('throws on %s input', (_label, sealed) => {
    expect(() => createSecretBox(KEY).open(sealed)).toThrow();
  });

  it('throws with a different key', () => {
    const sealed = createSecretBox(KEY).seal('secret');
    expect(() => createSecretBox(OTHER_KEY).open(sealed)).toThrow();
  });
});

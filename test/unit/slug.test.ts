import { describe, expect, it } from 'vitest';
import { slugify } from '../../src/text/slug.ts';

describe('slugify', () => {
  it.each([
    ['Team Wiki', {}, 'team-wiki'],
    ['  Ünïcode Café!! ', {}, 'unicode-cafe'],
    ['***', {}, ''],
    ['Meeting notes: 2026/03', {}, 'meeting-notes-2026-03'],
    ['Straße über Ölfeld', {}, 'straße-uber-olfeld'],
    ['プラグイン 設定', {}, 'プラグイン-設定'],
    ['a'.repeat(100), {}, 'a'.repeat(80)],
    ['a'.repeat(59) + ' b', { max: 60 }, 'a'.repeat(59)],
    ['Team Wiki', { ascii: true }, 'team-wiki'],
    ['  Ünïcode Café!! ', { ascii: true, max: 60 }, 'unicode-cafe'],
    ['プラグイン', { ascii: true }, ''],
    ['a'.repeat(100), { ascii: true, max: 60 }, 'a'.repeat(60)],
  ])('%s %o → %s', (text, opts, slug) => {
    expect(slugify(text, opts)).toBe(slug);
  });
});

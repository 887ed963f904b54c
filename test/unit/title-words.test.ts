import { describe, expect, it } from 'vitest';
import { foldedWords, titleWordRows } from '../../src/store/title-words.ts';

describe('title words (GET /search/titles)', () => {
  it('folds case and accents as the full-text index does', () => {
    expect(foldedWords('Café CRÈME Über-Größe')).toEqual(['cafe', 'creme', 'uber', 'große']);
    expect(foldedWords('  ')).toEqual([]);
  });

  it('indexes the whole title and aliases, and the words of title, aliases and path once each', () => {
    const rows = titleWordRows('Getting Started', 'guides/getting-started', { aliases: ['Onboarding', 'Démarrage'], other: 'x' });
    expect(
      rows
        .filter((r) => r.whole === 1)
        .map((r) => r.word)
        .sort(),
    ).toEqual(['demarrage', 'getting started', 'onboarding']);
    expect(
      rows
        .filter((r) => r.whole === 0)
        .map((r) => r.word)
        .sort(),
    ).toEqual(['demarrage', 'getting', 'guides', 'onboarding', 'started']);
    expect(titleWordRows('T', 'p', { aliases: 'Solo' }).map((r) => r.word)).toContain('solo');
    expect(
      titleWordRows('T', 'p', { aliases: 3 })
        .map((r) => r.word)
        .sort(),
    ).toEqual(['p', 't', 't']);
  });
});

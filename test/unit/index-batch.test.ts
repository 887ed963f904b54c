import { describe, expect, it } from 'vitest';
import { IndexBatch } from '../../src/domain/indexes/types.ts';
import type { Db } from '../../src/store/db/types.ts';

// The batch the derived indexes share one write's (or import chunk's, move's) state through
// (docs/architecture.md "Derived indexes"): work asked for the end runs once, in order, at finish.

const batch = () => new IndexBatch({} as Db, ['http://x'], null, true);

describe('IndexBatch', () => {
  it('runs what was asked for the end in order, including what that asks in turn', () => {
    const b = batch();
    const ran: string[] = [];
    b.atEnd(() => {
      ran.push('a');
      b.atEnd(() => ran.push('c'));
    });
    b.atEnd(() => ran.push('b'));
    expect(ran).toEqual([]);
    b.finish();
    expect(ran).toEqual(['a', 'b', 'c']);
    b.finish();
    expect(ran).toEqual(['a', 'b', 'c']); // each once
  });

  it("keeps an index's state for the batch until it is forgotten", () => {
    const b = batch();
    let made = 0;
    const make = () => ({ n: ++made });
    expect(b.state('x', make)).toBe(b.state('x', make));
    expect(made).toBe(1);
    b.forget('x');
    expect(b.state('x', make).n).toBe(2);
    expect(batch().state('x', make).n).toBe(3); // another batch, its own state
  });
});

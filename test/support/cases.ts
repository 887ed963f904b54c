// Table-driven tests: one vitest test per row of a table, so that a failing row is named on its own.
import { expect, it } from 'vitest';

/**
 * One test per `[input, want]` row, named by `title` (it.each's printf format over the row):
 * `fn(input)` deep-equals `want` (`toEqual`, which compares primitives with Object.is as `toBe` does).
 */
export function mapsTo<I, O>(title: string, fn: (input: I) => O, rows: ReadonlyArray<readonly [I, O]>): void {
  it.each(rows.map((r) => [...r] as [I, O]))(title, (input, want) => {
    expect(fn(input)).toEqual(want);
  });
}

/**
 * The rows of a case table kept as data beside its test, a JSON object `{ "test name": [input, …, want] }`
 * (test/unit/cases/), as it.each rows `[name, input, …, want]`. `T` is the type of a row after its name.
 */
export function namedRows<T extends unknown[]>(table: Record<string, unknown[]>): Array<[string, ...T]> {
  return Object.entries(table).map(([name, row]) => [name, ...row] as [string, ...T]);
}

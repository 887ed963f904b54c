import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { toIssue } from '../../src/domain/input-issues.ts';

const Schema = v.strictObject({
  name: v.string(),
  count: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(9))),
  tags: v.optional(v.pipe(v.array(v.string()), v.maxLength(2))),
  mode: v.optional(v.picklist(['a', 'b'])),
  code: v.optional(v.pipe(v.string(), v.minLength(2), v.maxLength(3))),
  nested: v.optional(v.strictObject({ x: v.optional(v.boolean()), y: v.optional(v.string()), z: v.optional(v.string()) })),
  custom: v.optional(v.custom<string>((x) => x === 'ok', 'must be "ok"')),
});

const issues = (data: unknown) => {
  const r = v.safeParse(Schema, data);
  return r.success ? [] : r.issues.map((i) => toIssue(i, Schema));
};

describe('toIssue', () => {
  it.each<[string, unknown, { key: string; code: string; message: string }]>([
    ['missing', {}, { key: 'name', code: 'required', message: 'is required' }],
    ['string type', { name: 1 }, { key: 'name', code: 'type', message: 'must be a string' }],
    ['number type', { name: 'n', count: '1' }, { key: 'count', code: 'type', message: 'must be a number' }],
    ['integer', { name: 'n', count: 1.5 }, { key: 'count', code: 'format', message: 'must be a whole number' }],
    ['min value', { name: 'n', count: 0 }, { key: 'count', code: 'min', message: 'must be at least 1' }],
    ['max value', { name: 'n', count: 10 }, { key: 'count', code: 'max', message: 'must be at most 9' }],
    ['list type', { name: 'n', tags: 'a' }, { key: 'tags', code: 'type', message: 'must be a list' }],
    ['list item', { name: 'n', tags: [1] }, { key: 'tags.0', code: 'type', message: 'must be a string' }],
    ['list length', { name: 'n', tags: ['a', 'b', 'c'] }, { key: 'tags', code: 'max', message: 'must have at most 2 items' }],
    ['picklist', { name: 'n', mode: 'c' }, { key: 'mode', code: 'option', message: 'must be one of "a", "b"' }],
    ['min length', { name: 'n', code: 'a' }, { key: 'code', code: 'min', message: 'must have at least 2 characters' }],
    ['max length', { name: 'n', code: 'abcd' }, { key: 'code', code: 'max', message: 'must have at most 3 characters' }],
    ['boolean', { name: 'n', nested: { x: 'yes' } }, { key: 'nested.x', code: 'type', message: 'must be true or false' }],
    ['object', { name: 'n', nested: 3 }, { key: 'nested', code: 'type', message: 'must be an object' }],
    ['own message kept', { name: 'n', custom: 'no' }, { key: 'custom', code: 'type', message: 'must be "ok"' }],
    [
      'unknown field, many allowed',
      { name: 'n', nmae: 1 },
      {
        key: 'nmae',
        code: 'undeclared',
        message: 'unknown field `nmae`; expected one of `name`, `count`, `tags`, `mode`, `code`, `nested`, `custom`',
      },
    ],
    [
      'unknown nested field',
      { name: 'n', nested: { w: 1 } },
      { key: 'nested.w', code: 'undeclared', message: 'unknown field `w`; expected one of `x`, `y`, `z`' },
    ],
  ])('%s', (_name, data, issue) => {
    expect(issues(data)).toContainEqual(issue);
  });

  it('lists two allowed fields with "or", and says less without the schema', () => {
    const Two = v.strictObject({ set: v.optional(v.string()), appendUnique: v.optional(v.string()) });
    const r = v.safeParse(Two, { sett: 1 });
    expect(r.success ? null : toIssue(r.issues[0], Two).message).toBe('unknown field `sett`; expected `set` or `appendUnique`');
    expect(r.success ? null : toIssue(r.issues[0]).message).toBe('unknown field `sett`');
  });

  it("never passes on valibot's own wording", () => {
    const all = [{}, { name: 1, count: 'x', tags: 3, mode: 4, code: 5, nested: [], zz: 1 }].flatMap(issues);
    for (const i of all) expect(i.message).not.toMatch(/Invalid|Expected|received/);
  });
});

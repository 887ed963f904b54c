import { describe, expect, it } from 'vitest';
import { mapsTo } from '../support/cases.ts';
import { ParseError, parseAssignment, parseWhere, typeValue } from '../../src/cli/values.ts';

describe('typeValue: --meta values typed by their look', () => {
  mapsTo('%j → %j', typeValue, [
    ['3', 3],
    ['-12', -12],
    ['2.5', 2.5],
    ['0', 0],
    ['0.75', 0.75],
    ['true', true],
    ['false', false],
    ['todo', 'todo'],
    ['007', '007'],
    ['1e3', '1e3'],
    ['3.', '3.'],
    ['.5', '.5'],
    ['2025-07-01', '2025-07-01'],
    ['True', 'True'],
    ['', ''],
    ['"42"', '42'],
    ["'true'", 'true'],
    ['["a",2,true]', ['a', 2, true]],
    ['[a,b]', '[a,b]'],
    ['[{"x":1}]', '[{"x":1}]'],
    ['99999999999999999999', '99999999999999999999'],
    ['hello world', 'hello world'],
  ]);
});

describe('parseAssignment', () => {
  mapsTo('%s', parseAssignment, [
    ['points=3', ['points', 3]],
    ['title=a=b', ['title', 'a=b']],
    ['empty=', ['empty', '']],
    ['due=2025-01-02T10:00:00Z', ['due', '2025-01-02T10:00:00Z']],
  ]);

  it.each(['novalue', '=3', 'bad key=1', 'a/b=1'])('%s is refused', (text) => {
    expect(() => parseAssignment(text)).toThrow(ParseError);
  });
});

describe('parseWhere: --where expressions into filters', () => {
  mapsTo('%s', parseWhere, [
    ['stage=todo', { key: 'stage', op: 'eq', value: 'todo' }],
    ['stage==todo', { key: 'stage', op: 'eq', value: 'todo' }],
    ['stage!=done', { key: 'stage', op: 'neq', value: 'done' }],
    ['points>=3', { key: 'points', op: 'gte', value: 3 }],
    ['points<=3', { key: 'points', op: 'lte', value: 3 }],
    ['points>3', { key: 'points', op: 'gt', value: 3 }],
    ['points<3.5', { key: 'points', op: 'lt', value: 3.5 }],
    ['points >= 3', { key: 'points', op: 'gte', value: 3 }],
    ['due<2025-07-01', { key: 'due', op: 'lt', value: '2025-07-01' }],
    ['done=false', { key: 'done', op: 'eq', value: false }],
    ['code="42"', { key: 'code', op: 'eq', value: '42' }],
    ['title=in progress', { key: 'title', op: 'eq', value: 'in progress' }],
    ['stage in todo,doing', { key: 'stage', op: 'in', value: ['todo', 'doing'] }],
    ['stage IN todo, doing ,', { key: 'stage', op: 'in', value: ['todo', 'doing'] }],
    ['points in 1,2,3', { key: 'points', op: 'in', value: [1, 2, 3] }],
    ['tags contains x', { key: 'tags', op: 'contains', value: 'x' }],
    ['tags contains two words', { key: 'tags', op: 'contains', value: 'two words' }],
    ['due exists', { key: 'due', op: 'exists' }],
    ['due missing', { key: 'due', op: 'missing' }],
    ['  due   exists  ', { key: 'due', op: 'exists' }],
    ['meta.sub-key_1=x', { key: 'meta.sub-key_1', op: 'eq', value: 'x' }],
  ]);

  it.each([
    'stage',
    'stage ~ todo',
    'stage=',
    'points>=',
    '=todo',
    'stage in',
    'stage in ,',
    'tags contains',
    'due exists now',
    'bad/key=1',
    '',
  ])('%j is refused with a message', (expr) => {
    expect(() => parseWhere(expr)).toThrow(ParseError);
  });
});

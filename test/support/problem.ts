// What a refused request answers: a problem+json body (docs/api.md), its issues naming the field.
import { expect } from 'vitest';
import type { Res } from './client.ts';

/**
 * `r` is a problem+json answer of `status`; with `issue`, one of its issues has each part given
 * (`key`, `code`). `what` names the request in a failure message.
 */
export function expectProblem(r: Res, status: number, issue?: { key?: string; code?: string }, what?: string): void {
  expect(r.status, what).toBe(status);
  expect(r.headers.get('content-type'), what).toBe('application/problem+json');
  if (issue) expect(r.body.issues, what).toContainEqual(expect.objectContaining(issue));
}

// The full-text index's tidying rounds (src/store/fts/tidy.ts) on a real index file: when there
// is nothing to do it says so (null), and a merge that becomes due once the index has been quiet
// long enough is announced with the wait, so that an idle helper (which otherwise looks again only
// a second later) starts it on time.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb } from '../../src/store/db/connection.ts';
import type { Db } from '../../src/store/db/types.ts';
import { ensureIndexGeneration, openIndexConnection } from '../../src/store/fts/index-file.ts';
import { createIndexTidy } from '../../src/store/fts/tidy.ts';

let dir = '';
const open: Db[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function indexConnection(): Db {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-tidy-'));
  const db = openDb(dir);
  const idx = openIndexConnection(db.name);
  open.push(idx, db);
  ensureIndexGeneration(db, idx);
  return idx;
}

describe('index tidy rounds', () => {
  it('has nothing to do for an index that took few pages', () => {
    const tidy = createIndexTidy(indexConnection());
    expect(tidy.idle()).toBeNull();
    tidy.indexed(10);
    expect(tidy.idle()).toBeNull();
  });

  it('names the wait before a merge that may be due, rather than nothing to do', () => {
    const tidy = createIndexTidy(indexConnection());
    tidy.indexed(1500); // past the first threshold (1,000 pages), and just now: not quiet yet
    const wait = tidy.idle();
    expect(wait).not.toBeNull();
    expect(wait!).toBeGreaterThan(0);
    expect(wait!).toBeLessThanOrEqual(250);
  });
});

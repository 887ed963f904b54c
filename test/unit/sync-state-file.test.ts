// The state of `kspace sync` on disk (src/cli/sync/state-file.ts): a snapshot and a journal of
// the entries each save changed. A crash at any byte of an append, or between a new snapshot and
// its journal, reads back as one of the states saved, never a mix and never an error.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BasePack } from '../../src/cli/sync/bases.ts';
import { StateFile, type FileEntry, type SyncState } from '../../src/cli/sync/state-file.ts';
import { tempDirs } from '../support/temp-dirs.ts';

const tempDir = tempDirs('sync-state');

const entry = (page: string, version: number): FileEntry => ({
  page,
  version,
  hash: `h${page}${version}`,
  size: 10,
  mtimeMs: 1000 + version,
});
const fresh = (): SyncState => ({
  format: 'kspace-sync',
  version: 1,
  server: 'http://x',
  space: 's',
  cursor: 5,
  files: {},
  attachments: {},
});
/** The state as plain data (what a load must give back). */
const plain = (s: SyncState): unknown => JSON.parse(JSON.stringify({ ...s, attachments: s.attachments ?? {} }));

/** Ten saves of a state, each changing a few entries: the state after each, and the journal's length then. */
function history(dir: string): { states: unknown[]; lengths: number[]; store: StateFile } {
  const store = new StateFile(dir);
  const s = fresh();
  for (let i = 0; i < 50; i++) s.files[`n${i}.md`] = entry(`n${i}`, 1);
  const states: unknown[] = [];
  const lengths: number[] = [];
  const journal = path.join(dir, '.kspace', 'sync.journal');
  store.save(s);
  states.push(plain(s));
  lengths.push(fs.statSync(journal).size);
  for (let i = 1; i <= 10; i++) {
    s.files[`n${i}.md`] = entry(`n${i}`, i + 1);
    delete s.files[`n${i + 20}.md`];
    s.files[`new${i}.md`] = entry(`new${i}`, 1);
    s.attachments![`files/a${i % 3}.bin`] = { pages: [`n${i}`], name: `a${i % 3}.bin`, sha256: `x${i}`, size: i, mtimeMs: i };
    s.cursor += i;
    expect(store.save(s)).toBe(true);
    states.push(plain(s));
    lengths.push(fs.statSync(journal).size);
  }
  return { states, lengths, store };
}

describe('kspace sync state: snapshot and journal', () => {
  it('writes only what changed, one line a save, and nothing when nothing did', () => {
    const dir = tempDir();
    const { states, store } = history(dir);
    expect(store.counts).toEqual({ lines: 10, snapshots: 1 });
    const again = new StateFile(dir);
    const s = again.load()!;
    expect(plain(s)).toEqual(states.at(-1));
    expect(again.save(s)).toBe(false);
    // The same values in a new object are no change either.
    s.files['n1.md'] = { ...s.files['n1.md'] };
    expect(again.save(s)).toBe(false);
    // An entry is changed by replacing it: a change in place would not be seen, so it throws.
    expect(() => {
      (s.files['n2.md'] as { version: number }).version = 99;
    }).toThrow(TypeError);
    const line = fs
      .readFileSync(path.join(dir, '.kspace', 'sync.journal'), 'utf8')
      .trim()
      .split('\n')
      .at(-1)!;
    expect(line.length).toBeLessThan(600); // one save's entries, not the state's 60
  });

  it('reads back the last whole save wherever a crash cut the journal, and appends after it', () => {
    const dir = tempDir();
    const { states, lengths } = history(dir);
    const journal = path.join(dir, '.kspace', 'sync.journal');
    const full = fs.readFileSync(journal);
    // Around each line's end, inside each line, and along the last line (each load of a torn
    // journal cuts it and flushes that: not every byte, to keep the test quick).
    const cuts = new Set<number>();
    for (let i = 0; i < lengths.length; i++) {
      for (const d of [-1, 0, 1, 2]) cuts.add(lengths[i] + d);
      if (i > 0) cuts.add((lengths[i - 1] + lengths[i]) >> 1);
    }
    for (let cut = lengths.at(-2)!; cut < full.length; cut += 17) cuts.add(cut);
    cuts.add(full.length - 5);
    for (const cut of [...cuts].filter((c) => c >= lengths[0] && c <= full.length).sort((a, b) => a - b)) {
      fs.writeFileSync(journal, full.subarray(0, cut));
      const whole = lengths.filter((l) => l <= cut).length - 1;
      const store = new StateFile(dir);
      const s = store.load()!;
      expect(plain(s), `cut at ${cut}`).toEqual(states[whole]);
      if (cut === full.length - 5) {
        // The torn tail is cut off: a save after it is read back.
        s.files['after.md'] = entry('after', 1);
        store.save(s);
        expect(plain(new StateFile(dir).load()!)).toEqual(plain(s));
      }
    }
    // A changed byte in the last line (a power loss), still JSON: its checksum fails, it is not applied.
    const bad = Buffer.from(full);
    bad[full.lastIndexOf('"sha256":"x') + 10] = 'y'.charCodeAt(0);
    fs.writeFileSync(journal, bad);
    expect(plain(new StateFile(dir).load()!)).toEqual(states.at(-2));
  });

  it('folds the journal into a new snapshot, and a journal of an older snapshot is left unread', () => {
    const dir = tempDir();
    const store = new StateFile(dir, { minJournalBytes: 4096 });
    const s = fresh();
    store.save(s);
    const journal = path.join(dir, '.kspace', 'sync.journal');
    let before = fs.readFileSync(journal);
    for (let i = 0; i < 100; i++) {
      s.files[`f${i % 40}.md`] = entry(`f${i % 40}`, i);
      const snapshots = store.counts.snapshots;
      store.save(s);
      if (store.counts.snapshots > snapshots && i < 90) {
        // A crash after the new snapshot, before its journal: the old journal names the old
        // snapshot and is not read (the new one holds all it says).
        const now = fs.readFileSync(journal);
        fs.writeFileSync(journal, before);
        expect(plain(new StateFile(dir).load()!)).toEqual(plain(s));
        fs.writeFileSync(journal, now);
      }
      before = fs.readFileSync(journal);
    }
    expect(store.counts.snapshots).toBeGreaterThan(2);
    expect(fs.statSync(journal).size).toBeLessThan(4096);
    expect(plain(new StateFile(dir).load()!)).toEqual(plain(s));
    // A snapshot without a journal id (a state written before the journal): read as it is, and
    // the next save writes a snapshot.
    fs.writeFileSync(path.join(dir, '.kspace', 'sync.json'), JSON.stringify({ ...fresh(), cursor: 9 }));
    const legacy = new StateFile(dir);
    const l = legacy.load()!;
    expect(l.cursor).toBe(9);
    l.cursor = 10;
    legacy.save(l);
    expect(legacy.counts.snapshots).toBe(1);
    expect(new StateFile(dir).load()!.cursor).toBe(10);
  });
});

describe('kspace sync merge bases: one pack', () => {
  it('reads back what it keeps, treats a record cut short as missing, and drops the unused', () => {
    const dir = tempDir();
    const pack = new BasePack(dir);
    const texts = ['one\n', 'two ✓\n', 'three\n'.repeat(100)];
    const hashes = texts.map((t) => pack.keep(t));
    expect(pack.keep(texts[0])).toBe(hashes[0]); // once
    pack.close();
    const file = path.join(dir, '.kspace', 'bases.pack');
    const whole = fs.readFileSync(file);
    // A crash in the last append: that base is missing, the others read, and a new one follows.
    fs.writeFileSync(file, whole.subarray(0, whole.length - 7));
    const again = new BasePack(dir);
    expect(texts.map((_, i) => again.read(hashes[i]))).toEqual([texts[0], texts[1], null]);
    const four = again.keep('four\n');
    again.close();
    expect(new BasePack(dir).read(four)).toBe('four\n');
    // A changed byte: not what its hash says, so missing.
    const bad = fs.readFileSync(file);
    bad[bad.indexOf('two')] = 'T'.charCodeAt(0);
    fs.writeFileSync(file, bad);
    expect(new BasePack(dir).read(hashes[1])).toBeNull();
    // A base kept as a file by an earlier version is read, and removed once unused.
    fs.mkdirSync(path.join(dir, '.kspace', 'base'));
    const oldHash = new BasePack(tempDir()).keep('old\n');
    fs.writeFileSync(path.join(dir, '.kspace', 'base', oldHash), 'old\n');
    const p = new BasePack(dir);
    expect(p.read(oldHash)).toBe('old\n');
    // Mostly dead: written again with the used bases only.
    const big = p.keep('x'.repeat(5 * 1024 * 1024));
    p.prune(new Set([hashes[0], four]), 100);
    expect(fs.existsSync(path.join(dir, '.kspace', 'base', oldHash))).toBe(false);
    expect(fs.statSync(file).size).toBeLessThan(1000);
    const after = new BasePack(dir);
    expect([after.read(hashes[0]), after.read(four), after.read(big)]).toEqual([texts[0], 'four\n', null]);
  });
});

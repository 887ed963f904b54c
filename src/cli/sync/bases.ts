// The merge bases of `kspace sync` (docs/sync.md "State and crashes"): the text of each file as
// last synced, by its sha256, the common ancestor of a three-way merge. They are records appended
// to one file, `DIR/.kspace/bases.pack` (`<sha256> <byte length>\n<text>\n` each): a file a base
// cost a file creation for each synced file, as much as the synced file itself. A base is checked
// against its hash when read, so one cut short by a crash is treated as missing (the merge then
// keeps both versions), and the pack is read up to its first record that is not whole. On a full
// round the pack is written again without the bases no file refers to, once they are more than
// half of it. Bases kept as files under `base/` by an earlier version are still read, and removed
// once nothing refers to them.
import fs from 'node:fs';
import path from 'node:path';
import { STATE_DIR, writeDurably } from './state-file.ts';
import { sha256 } from './state.ts';

const PACK = 'bases.pack';
const OLD_DIR = 'base';
/** Dead bytes are dropped from the pack once there are more of them than this and than live ones. */
const MIN_DEAD_BYTES = 4 * 1024 * 1024;

type Place = { at: number; length: number };

export class BasePack {
  private readonly dir: string;
  private readonly file: string;
  private index: Map<string, Place> | null = null;
  private size = 0;
  private fd: number | null = null;
  private unflushed = false;

  constructor(dir: string) {
    this.dir = path.join(dir, STATE_DIR);
    this.file = path.join(this.dir, PACK);
  }

  /** Keeps `text` as a base; its hash. */
  keep(text: string): string {
    const hash = sha256(text);
    const index = this.load();
    if (index.has(hash)) return hash;
    const body = Buffer.from(text);
    const head = Buffer.from(`${hash} ${body.length}\n`);
    if (this.fd === null) {
      fs.mkdirSync(this.dir, { recursive: true });
      this.fd = fs.openSync(this.file, 'a');
    }
    const record = Buffer.concat([head, body, Buffer.from('\n')]);
    if (fs.writeSync(this.fd, record) !== record.length) throw new Error(`${this.file}: a base was written short`);
    index.set(hash, { at: this.size + head.length, length: body.length });
    this.size += record.length;
    this.unflushed = true;
    return hash;
  }

  /** Puts the bases kept since the last flush on the disk: before a state that names them is saved. */
  flush(): void {
    if (!this.unflushed || this.fd === null) return;
    fs.fdatasyncSync(this.fd);
    this.unflushed = false;
  }

  /** A base, or null when it is missing or not what its hash says. */
  read(hash: string): string | null {
    const p = this.load().get(hash);
    let text: string | null = null;
    if (p) {
      const buf = Buffer.alloc(p.length);
      const fd = fs.openSync(this.file, 'r');
      try {
        if (fs.readSync(fd, buf, 0, p.length, p.at) === p.length) text = buf.toString('utf8');
      } finally {
        fs.closeSync(fd);
      }
    } else {
      try {
        text = fs.readFileSync(path.join(this.dir, OLD_DIR, hash), 'utf8');
      } catch {
        return null;
      }
    }
    return text !== null && sha256(text) === hash ? text : null;
  }

  /**
   * Drops the bases not in `used`: the old `base/` files at once, the pack's when they are most of
   * it. `liveBytes`: about how large the used ones are (the synced files' sizes): a pack not much
   * larger is left unread.
   */
  prune(used: Set<string>, liveBytes: number): void {
    const old = path.join(this.dir, OLD_DIR);
    let names: string[] = [];
    try {
      names = fs.readdirSync(old);
    } catch {
      /* none */
    }
    for (const n of names) if (!used.has(n)) fs.rmSync(path.join(old, n), { force: true });
    let size = 0;
    try {
      size = fs.statSync(this.file).size;
    } catch {
      return;
    }
    if (size - liveBytes <= Math.max(MIN_DEAD_BYTES, liveBytes)) return;
    const index = this.load();
    let live = 0;
    for (const [hash, p] of index) if (used.has(hash)) live += p.length + 80;
    const dead = this.size - live;
    if (dead <= Math.max(MIN_DEAD_BYTES, live)) return;
    const parts: Buffer[] = [];
    for (const hash of used) {
      const text = index.has(hash) ? this.read(hash) : null;
      if (text !== null) parts.push(Buffer.from(`${hash} ${Buffer.byteLength(text)}\n${text}\n`));
    }
    this.close();
    writeDurably(this.file, Buffer.concat(parts));
    this.index = null;
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }

  /** The pack's records up to the first that is not whole (cut off, so appends follow whole ones). */
  private load(): Map<string, Place> {
    if (this.index) return this.index;
    const index = new Map<string, Place>();
    let data: Buffer;
    try {
      data = fs.readFileSync(this.file);
    } catch {
      data = Buffer.alloc(0);
    }
    let at = 0;
    while (at < data.length) {
      const nl = data.indexOf(10, at);
      const m = nl < 0 || nl - at > 90 ? null : /^([0-9a-f]{64}) (\d+)$/.exec(data.toString('latin1', at, nl));
      if (!m) break;
      const length = Number(m[2]);
      const end = nl + 1 + length;
      if (end >= data.length || data[end] !== 10) break;
      index.set(m[1], { at: nl + 1, length });
      at = end + 1;
    }
    if (at < data.length) fs.truncateSync(this.file, at);
    this.size = at;
    this.index = index;
    return index;
  }
}

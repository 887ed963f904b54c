// A progress bar on stderr for long transfers (export, import). Only on a terminal: when stderr
// is piped or redirected nothing is written, so scripts see exactly the command's output.
import { formatBytes } from '../text/bytes.ts';

export type Progress = { add(bytes: number): void; note(text: string): void; done(): void; readonly bytes: number };

type Tty = { isTTY?: boolean; columns?: number; write(s: string): unknown };

const WIDTH = 24;
const EVERY_MS = 100;

/** `total` known: a bar with a percentage; unknown (a streamed export): bytes and a spinner. */
export function startProgress(label: string, total: number | null, out: Tty = process.stderr): Progress {
  let bytes = 0;
  let last = 0;
  let status = '';
  let frame = 0;
  const active = Boolean(out.isTTY);
  const started = Date.now();
  const draw = (force: boolean) => {
    if (!active) return;
    const now = Date.now();
    if (!force && now - last < EVERY_MS) return;
    last = now;
    const rate = bytes / Math.max(0.001, (now - started) / 1000);
    let line: string;
    if (total && total > 0) {
      const f = Math.min(1, bytes / total);
      const filled = Math.round(f * WIDTH);
      line = `${label} [${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${String(Math.floor(f * 100)).padStart(3)}%  ${formatBytes(bytes)} / ${formatBytes(total)}`;
    } else {
      line = `${label} ${'|/-\\'[frame++ % 4]} ${formatBytes(bytes)}  ${formatBytes(rate)}/s`;
    }
    if (status) line += `  ${status}`;
    const cols = out.columns && out.columns > 20 ? out.columns : 80;
    out.write(`\r\x1b[2K${line.slice(0, cols - 1)}`);
  };
  return {
    get bytes() {
      return bytes;
    },
    add(n) {
      bytes += n;
      draw(false);
    },
    note(text) {
      status = text;
      draw(true);
    },
    done() {
      if (active) out.write('\r\x1b[2K');
    },
  };
}

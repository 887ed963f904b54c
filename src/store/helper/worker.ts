// The checkpoint and full-text helper as a worker thread of the server (helper/thread.ts starts it:
// from this file in a checkout, from its own bundle in the single executable). It gets the
// database file and, in the executable, the SQLite addon the server loaded.
import { parentPort, workerData } from 'node:worker_threads';
import { tightenHeapLimit } from '../../heap-limit.ts';
import type { HelperData } from './thread.ts';
import { HEAP_LINE, portChannel, runCheckpointer } from './loop.ts';
import { setNativeBinding } from '../db/native.ts';

const data = workerData as HelperData;
if (data.addon) {
  const mod = { exports: {} as object };
  process.dlopen(mod, data.addon);
  setNativeBinding(mod.exports, data.addon);
}
const port = parentPort!;
// `kspace serve` asks for it once started, after its own heap (cli/serve-run.ts).
port.on('message', (line: string) => {
  if (line === HEAP_LINE) tightenHeapLimit();
});
// Litestream mode: no log restarts (restartPages never reached), PASSIVE passes only.
void runCheckpointer(data.dbFile, portChannel(port), data.passiveOnly ? Infinity : undefined).then(() => port.close());

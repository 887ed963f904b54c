// The test shipper (shipper.ts) as a process of its own, for the bench: its whole-file copies
// are synchronous SQLite work that would otherwise stall the load generator's event loop.
// `node scripts/lib/shipper-process.ts <primary kspace.db> <replica kspace.db> [intervalMs]`:
// one round, "ready" on standard output, then rounds until standard input closes; at the end one
// line of JSON with the rounds ({ms, pages, at}).
import { createShipper } from './shipper.ts';

const [primaryFile, replicaFile, interval = '0'] = process.argv.slice(2);
const shipper = createShipper(primaryFile, replicaFile);
await shipper.ship();
process.stdout.write('ready\n');
shipper.start(Number(interval));
process.stdin.resume();
process.stdin.on('end', async () => {
  await shipper.close();
  process.stdout.write(`${JSON.stringify(shipper.rounds)}\n`);
  process.exit(0);
});

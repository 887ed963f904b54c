// A primary and a read replica for a whole test file: the primary with SERVICE_CHECKPOINT_MODE=
// litestream and a space `eng`, the replica over a copy the test shipper (scripts/lib/shipper.ts,
// standing in for Litestream's follower) makes every 10 ms. Each test fails on an error either logged.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { createShipper, type Shipper } from '../../scripts/lib/shipper.ts';
import { late } from './fixture.ts';
import { startServer, type TestServer } from './server.ts';

export type ReplicaPair = { primary: TestServer; replica: TestServer; shipper: Shipper; replicaDir: string };

export function useReplicaPair(
  opts: {
    primaryEnv?: Record<string, string>;
    replicaEnv?: Record<string, string>;
    /** What the primary holds before the first copy. */
    setup?: (primary: TestServer) => Promise<void>;
  } = {},
): ReplicaPair {
  const primary = late<TestServer>('the primary');
  const replica = late<TestServer>('the replica');
  const shipper = late<Shipper>('the shipper');
  const made: Partial<ReplicaPair> = {};
  const replicaDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kspace-replica-'));
  beforeAll(async () => {
    primary.set((made.primary = await startServer({ SERVICE_CHECKPOINT_MODE: 'litestream', ...opts.primaryEnv })));
    expect((await made.primary.admin.post('/spaces', { slug: 'eng', name: 'Eng' })).status).toBe(201);
    await opts.setup?.(made.primary);
    shipper.set((made.shipper = createShipper(path.join(made.primary.dataDir, 'kspace.db'), path.join(replicaDir, 'kspace.db'))));
    await made.shipper.ship();
    made.shipper.start(10);
    replica.set(
      (made.replica = await startServer(
        { SERVICE_ROLE: 'replica', SERVICE_PRIMARY_URL: made.primary.url, ...opts.replicaEnv },
        { dataDir: replicaDir },
      )),
    );
  });
  afterAll(async () => {
    await made.replica?.close();
    await made.shipper?.close();
    await made.primary?.close();
    fs.rmSync(replicaDir, { recursive: true, force: true });
  });
  afterEach(() => {
    expect(primary.ref.errors).toEqual([]);
    expect(replica.ref.errors).toEqual([]);
  });
  return { primary: primary.ref, replica: replica.ref, shipper: shipper.ref, replicaDir };
}

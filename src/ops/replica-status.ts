// How far a replica's copy is: reported by the replica front (src/front/replica.ts), which
// follows the replicated transaction number, and read by /readyz (readiness.ts).
import type { Services } from '../services.ts';

/** What /readyz says of the replication. */
type ReplicaStatus = { txid: number; lagMs: number; sinceChangeMs: number; replaced: boolean };

const replicas = new WeakMap<Services, () => ReplicaStatus>();

/** Called once by a replica's front: `status` reads the replication status now. */
export function reportReplicaStatus(svc: Services, status: () => ReplicaStatus): void {
  replicas.set(svc, status);
}

/** The replication status of a replica's services (null on a primary). */
export function replicaStatusOf(svc: Services): ReplicaStatus | null {
  return replicas.get(svc)?.() ?? null;
}

import type { Services } from '../../services.ts';
import type { Caller } from '../../model.ts';
import { AppError } from '../errors.ts';

// Imports hold their whole bundle in memory (the body, its text, the parsed pages: about three
// times the body's size at the peak), so they are bounded twice: one import at a time per
// principal, and a budget of import bytes in flight across all principals
// (SERVICE_IMPORT_BUDGET_BYTES). An import is charged its Content-Length, or the import cap when
// it sends none, from before its body is read until its last page is written. An import alone
// is always admitted (SERVICE_MAX_IMPORT_BYTES caps it), so a cap above the budget still works.

/** Seconds a refused import is told to wait (Retry-After). */
const IMPORT_RETRY_AFTER = 5;

/** The imports in flight: who is importing, and how many bytes they are charged. */
class ImportGate {
  private readonly importing = new Set<string>();
  private charged = 0;
  private readonly budget: number;

  constructor(budget: number) {
    this.budget = budget;
  }

  /** Bytes charged to the imports in flight. */
  get inFlight(): number {
    return this.charged;
  }

  /**
   * Admits one import of `bytes` for principal `who` and returns its release (call it once, when
   * the import ends, however it ends). 429 while `who` has another import in flight; 503 when the
   * budget cannot take it beside the imports in flight.
   */
  admit(who: string, bytes: number): () => void {
    const retryAfter = { retryAfter: IMPORT_RETRY_AFTER };
    if (this.importing.has(who)) {
      throw new AppError(
        'too_many_requests',
        'another import of yours is in progress: one import at a time per principal',
        undefined,
        retryAfter,
      );
    }
    if (this.charged > 0 && this.charged + bytes > this.budget) {
      throw new AppError(
        'busy',
        `imports in progress hold the server's import budget (SERVICE_IMPORT_BUDGET_BYTES, ${this.budget} bytes)`,
        undefined,
        retryAfter,
      );
    }
    this.importing.add(who);
    this.charged += bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.importing.delete(who);
      this.charged -= bytes;
    };
  }
}

const gates = new WeakMap<Services, ImportGate>();

/** The server's import gate (one per Services). */
export function importGate(svc: Services): ImportGate {
  let gate = gates.get(svc);
  if (!gate) gates.set(svc, (gate = new ImportGate(svc.config.limits.importBudgetBytes)));
  return gate;
}

/** What an import with this Content-Length header is charged: its length, or the cap when it has none (chunked). */
function importCharge(contentLength: string | null, cap: number): number {
  const n = Number(contentLength ?? NaN);
  return Number.isSafeInteger(n) && n >= 0 ? Math.min(n, cap) : cap;
}

/** Runs one import for `caller` through the gate. */
export async function gatedImport<T>(svc: Services, caller: Caller, contentLength: string | null, run: () => Promise<T>): Promise<T> {
  const release = importGate(svc).admit(caller.id, importCharge(contentLength, svc.config.limits.importBytes));
  try {
    return await run();
  } finally {
    release();
  }
}

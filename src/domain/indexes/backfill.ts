import type { BackgroundJob, Services } from '../../services.ts';
import { indexes } from './list.ts';

// The indexes' backfills (an index brought to rows that pages written by an older version lack),
// one after the other, a while after start, in the background: each goes through the write
// queue in batches, so requests are served in between. A server stopped half-way starts over.
const START_DELAY_MS = 1000;

export function indexBackfillJob(svc: Services): BackgroundJob {
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let running: Promise<unknown> | null = null;
  return {
    start() {
      const due = indexes.filter((ix) => ix.backfill?.due(svc));
      if (due.length === 0) return;
      timer = setTimeout(() => {
        running = (async () => {
          for (const ix of due) {
            if (stopped) return;
            try {
              const n = await ix.backfill!.run(svc, () => stopped);
              if (n > 0) svc.log.info(ix.backfill!.done(n));
            } catch (e) {
              svc.log.warn(`the ${ix.name} index's backfill of older pages stopped: ${(e as Error).message}`);
            }
          }
        })();
      }, START_DELAY_MS);
      timer.unref();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}

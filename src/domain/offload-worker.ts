// The worker thread of offload.ts: runs the pure functions it is sent, one at a time.
import os from 'node:os';
import { parentPort } from 'node:worker_threads';
import { diffAnswerBytes, type DiffHead, type StoredPair } from './revision-diff.ts';
import { scanLinks, type LinkBudget, type LinkScan } from './links/extract.ts';
import { finishRender, renderParts, type RenderParts } from './links/render.ts';
import type { PageRef } from '../model.ts';

export type OffloadJob =
  | { kind: 'render'; content: string; from: PageRef; baseUrls: string[] }
  | { kind: 'finish'; parts: RenderParts; targets: Array<PageRef | null>; exists: string[]; embeds?: Record<number, string> }
  | { kind: 'revdiff'; head: DiffHead; pair: StoredPair }
  | { kind: 'links'; content: string; from: PageRef; baseUrls: string[]; budget: LinkBudget };

/**
 * A diff's result is the whole answer as UTF-8 bytes, handed over, not copied: escaping a 4 MB
 * diff and encoding the 5 MB answer held the event loop for tens of milliseconds.
 */
export type OffloadResult =
  | ({ kind: 'render' } & RenderParts)
  | { kind: 'finish'; html: string }
  | { kind: 'revdiff'; answer: Uint8Array<ArrayBuffer> }
  | ({ kind: 'links' } & LinkScan);

/** Below the server's own threads: the event loop's answers come first. */
const OFFLOAD_NICE = 10;

if (parentPort) {
  const port = parentPort;
  try {
    os.setPriority(OFFLOAD_NICE);
  } catch {
    // not allowed here: the worker runs at the server's priority
  }
  port.on('message', (job: OffloadJob) => {
    const result: OffloadResult =
      job.kind === 'render'
        ? { kind: 'render', ...renderParts(job.content, job.from, job.baseUrls) }
        : job.kind === 'finish'
          ? { kind: 'finish', html: finishRender(job.parts, job.targets, new Set(job.exists), job.embeds) }
          : job.kind === 'links'
            ? { kind: 'links', ...scanLinks(job.content, job.from, job.baseUrls, job.budget) }
            : { kind: 'revdiff', answer: diffAnswerBytes(job.head, job.pair) };
    port.postMessage(result, result.kind === 'revdiff' ? [result.answer.buffer] : []);
  });
  port.postMessage('ready');
}

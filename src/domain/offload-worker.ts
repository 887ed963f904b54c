// The worker thread of offload.ts: runs the pure functions it is sent, one at a time.
import os from 'node:os';
import { parentPort } from 'node:worker_threads';
import { diffContents, type ContentDiff } from './content-diff.ts';
import { scanLinks, type LinkBudget, type LinkScan } from './links/extract.ts';
import { finishRender, renderParts, type RenderParts } from './links/render.ts';
import type { PageRef } from '../model.ts';

export type OffloadJob =
  | { kind: 'render'; content: string; from: PageRef; baseUrls: string[] }
  | { kind: 'finish'; parts: RenderParts; targets: Array<PageRef | null>; exists: string[]; embeds?: Record<number, string> }
  | { kind: 'diff'; oldName: string; newName: string; a: string; b: string }
  | { kind: 'links'; content: string; from: PageRef; baseUrls: string[]; budget: LinkBudget };

/** A diff's result carries its text already written as a JSON string (escaping 4 MB took the event loop tens of ms). */
export type OffloadResult =
  | ({ kind: 'render' } & RenderParts)
  | { kind: 'finish'; html: string }
  | { kind: 'diff'; contentDiffJson: string; truncated: boolean }
  | ({ kind: 'links' } & LinkScan);

function diffAsJson(d: ContentDiff): OffloadResult {
  return { kind: 'diff', contentDiffJson: JSON.stringify(d.contentDiff), truncated: d.truncated };
}

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
            : diffAsJson(diffContents(job.oldName, job.newName, job.a, job.b));
    port.postMessage(result);
  });
  port.postMessage('ready');
}

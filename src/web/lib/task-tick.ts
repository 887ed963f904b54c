// Ticking a task list checkbox on the page view (issue 35 item 6): the page's Markdown with that
// item's `[ ]`/`[x]` set, saved as a new version with baseVersion. The rendered checkbox carries
// the item's line in the version shown (data-line); when the page changed since, the tick goes
// to the same line in the new version if it is still there, else nothing is saved and the
// person is told. A concurrent save between the read and the write (409) is tried again.
import { ApiError, get, pageApi, put } from '../api/client.ts';
import type { Page } from '../api/types.ts';

const TASK_LINE = /^(\s*(?:[-*+]|\d{1,9}[.)])[ \t]+)\[[ xX]\]/;

/** Saves the tick; answers null when saved, or what to tell the person. */
export async function saveTick(shown: Page, line: number, checked: boolean): Promise<string | null> {
  const original = shown.content.split('\n')[line];
  if (original === undefined || !TASK_LINE.test(original)) return 'This task is not in the page any more: the tick was not saved.';
  for (let attempt = 0; attempt < 3; attempt++) {
    const now = await get<Page>(pageApi(shown.space, shown.path));
    const lines = now.content.split('\n');
    const at = now.version === shown.version ? line : lines.indexOf(original);
    if (at < 0) return 'The page changed meanwhile and this task is no longer in it: the tick was not saved.';
    lines[at] = lines[at].replace(TASK_LINE, `$1[${checked ? 'x' : ' '}]`);
    try {
      await put(pageApi(shown.space, shown.path), { content: lines.join('\n'), baseVersion: now.version });
      return null;
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 409)) throw err;
    }
  }
  return 'The page keeps changing: the tick was not saved. Try again.';
}

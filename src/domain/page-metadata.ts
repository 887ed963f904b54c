import type { Services } from '../services.ts';
import { notifyEventsWritten } from '../services.ts';
import { invalid } from './errors.ts';
import { applyPatch, changedKeysOf, checkKey, checkMetadata, checkValue, type MetadataPatch } from './metadata.ts';
import { checkPatchedRecord } from './records/apply.ts';
import { loadWritablePage, presentPage, writeRevision, type Page } from './pages.ts';
import { tx } from '../store/db/transactions.ts';
import type { PageState } from '../store/pages.ts';
import type { Caller, Issue, Metadata } from '../model.ts';

function checkPatch(patch: MetadataPatch, svc: Services): Issue[] {
  const limits = svc.config.limits;
  const issues: Issue[] = [];
  for (const [k, v] of Object.entries(patch.set ?? {})) {
    const issue = checkKey(k, `set.${k}`) ?? (v === null ? null : checkValue(k, v, limits, `set.${k}`));
    if (issue) issues.push(issue);
  }
  for (const [k, items] of Object.entries(patch.appendUnique ?? {})) {
    const issue =
      checkKey(k, `appendUnique.${k}`) ??
      (Array.isArray(items)
        ? checkValue(k, items, limits, `appendUnique.${k}`)
        : { key: `appendUnique.${k}`, code: 'type', message: 'appendUnique takes a list of items per key' });
    if (issue) issues.push(issue);
  }
  if ('template' in (patch.set ?? {}) || 'template' in (patch.appendUnique ?? {})) {
    issues.push({ key: 'template', code: 'format', message: "'template' is the record type stamp and is not patched" });
  }
  return issues;
}

/** Applies a metadata patch as a new revision; a patch that changes nothing writes nothing. */
export function patchMetadata(
  svc: Services,
  caller: Caller,
  slug: string,
  path: string,
  patch: MetadataPatch,
): { page: Page; changedKeys: string[] } {
  const issues = checkPatch(patch, svc);
  if (issues.length) throw invalid(issues);
  const out = tx(svc.db, () => {
    const { space, page } = loadWritablePage(svc, caller, slug, path);
    const current = JSON.parse(page.metadata) as Metadata;
    let { next, changedKeys } = applyPatch(current, patch);
    if (changedKeys.length === 0) return { space, row: page, changedKeys };
    if (page.template) {
      // A record: checked against its type like a write (absent fields take their defaults).
      const record = checkPatchedRecord(svc, caller, space, page.template, next, patch);
      if (record.issues.length) throw invalid(record.issues);
      next = record.metadata;
      changedKeys = changedKeysOf(current, next);
      if (changedKeys.length === 0) return { space, row: page, changedKeys };
    }
    const afterIssues = checkMetadata(next, svc.config.limits);
    if (afterIssues.length) throw invalid(afterIssues);
    const state: PageState = {
      title: page.title,
      content: page.content,
      frontmatter: page.frontmatter,
      metadata: JSON.stringify(next),
      template: page.template,
    };
    const w = writeRevision(svc, caller, space, page.path, page, state, { name: 'page.metadata.updated', changedKeys });
    return { space, row: w.row, changedKeys };
  });
  if (out.changedKeys.length) notifyEventsWritten(svc);
  return { page: presentPage(out.space, out.row), changedKeys: out.changedKeys };
}

import type { Services } from '../services.ts';
import { readersBefore, recordChange, type Before } from './changes.ts';
import { invalid } from './errors.ts';
import { accessChanged, withBatch } from './indexes/list.ts';
import { loadReadablePage, loadWritablePage } from './pages.ts';
import { tx } from '../store/db/transactions.ts';
import { readAcl, replaceAcl, sealHistory } from '../store/pages.ts';
import { existingPrincipalIds, findPrincipalByName } from '../store/principals.ts';
import type { AclEntry, Caller, Issue } from '../model.ts';

/** `restricted: false` means the page follows its space's defaultAccess. */
type Acl = { restricted: boolean; read: string[]; write: string[] };

/** The ACL as it was PUT: `read` lists every reader, writers included (write implies read). */
function presentAcl(entries: AclEntry[], hasAcl: boolean): Acl {
  return {
    restricted: hasAcl,
    read: entries.map((e) => e.principal_id),
    write: entries.filter((e) => e.perm === 'write').map((e) => e.principal_id),
  };
}

export function getAcl(svc: Services, caller: Caller, slug: string, path: string) {
  const { page, acl } = loadReadablePage(svc, caller, slug, path);
  return presentAcl(acl, page.has_acl === 1);
}

/** Sets a page's own ACL (write implies read); only those who may write the page may do it. */
export function setAcl(svc: Services, caller: Caller, slug: string, path: string, input: { read: string[]; write: string[] }) {
  return tx(svc.db, () => {
    const { space, page } = loadWritablePage(svc, caller, slug, path);
    // Entries name principals by id or, failing that, by name (docs/security.md).
    const known = existingPrincipalIds(svc.db, caller.orgId, [...input.read, ...input.write]);
    const issues: Issue[] = [];
    const resolve = (list: string[], key: string) =>
      list.map((ref, i) => {
        if (known.has(ref)) return ref;
        const byName = findPrincipalByName(svc.db, caller.orgId, ref);
        if (!byName) issues.push({ key: `${key}[${i}]`, code: 'unknown', message: `no principal '${ref}'` });
        return byName ?? ref;
      });
    const read = resolve(input.read, 'read');
    const write = resolve(input.write, 'write');
    if (issues.length) throw invalid(issues);
    const all = [...new Set([...read, ...write])];
    const writers = new Set(write);
    const entries: AclEntry[] = all.map((id) => ({ principal_id: id, perm: writers.has(id) ? 'write' : 'read' }));
    const before = readersBefore(svc.db, page.id, page.path);
    withBatch(svc, undefined, (b) =>
      accessChanged(b, { id: page.id, spaceSlug: space.slug, path: page.path, title: page.title, live: true }, () =>
        replaceAcl(svc.db, page.id, entries),
      ),
    );
    recordAccessChange(svc, caller, page, before);
    return presentAcl(readAcl(svc.db, page.id), true);
  });
}

export function deleteAcl(svc: Services, caller: Caller, slug: string, path: string) {
  tx(svc.db, () => {
    const { space, page } = loadWritablePage(svc, caller, slug, path);
    // The page follows its space default from now on; the history the ACL governed keeps its readers.
    sealHistory(svc.db, page.id);
    const before = readersBefore(svc.db, page.id, page.path);
    withBatch(svc, undefined, (b) =>
      accessChanged(b, { id: page.id, spaceSlug: space.slug, path: page.path, title: page.title, live: true }, () =>
        replaceAcl(svc.db, page.id, null),
      ),
    );
    recordAccessChange(svc, caller, page, before);
  });
  return presentAcl([], false);
}

/** Which change-feed readers see the page arrive or leave (docs/changes.md). */
function recordAccessChange(svc: Services, caller: Caller, page: { id: number; path: string; version: number }, before: Before): void {
  recordChange(svc.db, caller, { event: 'page.access', pageId: page.id, path: page.path, version: page.version, at: svc.now(), before });
}

import type { Services } from '../services.ts';
import type { AclEntry, Caller } from './access.ts';
import { invalid } from './errors.ts';
import { changePageAccess } from './indexing.ts';
import type { Issue } from './issues.ts';
import { loadReadablePage, loadWritablePage } from './pages.ts';
import { tx } from '../store/db.ts';
import { readAcl, replaceAcl, sealHistory } from '../store/pages.ts';
import { existingPrincipalIds } from '../store/principals.ts';

/** `restricted: false` means the page follows its space's defaultAccess. */
export type Acl = { restricted: boolean; read: string[]; write: string[] };

/** The ACL as it was PUT: `read` lists every reader, writers included (write implies read). */
export function presentAcl(entries: AclEntry[], hasAcl: boolean): Acl {
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
    const { page } = loadWritablePage(svc, caller, slug, path);
    const all = [...new Set([...input.read, ...input.write])];
    const known = existingPrincipalIds(svc.db, caller.orgId, all);
    const issues: Issue[] = [];
    input.read.forEach((id, i) => { if (!known.has(id)) issues.push({ key: `read[${i}]`, code: 'unknown', message: `no principal '${id}'` }); });
    input.write.forEach((id, i) => { if (!known.has(id)) issues.push({ key: `write[${i}]`, code: 'unknown', message: `no principal '${id}'` }); });
    if (issues.length) throw invalid(issues);
    const writers = new Set(input.write);
    const entries: AclEntry[] = all.map((id) => ({ principal_id: id, perm: writers.has(id) ? 'write' : 'read' }));
    changePageAccess(svc.db, page.id, () => replaceAcl(svc.db, page.id, entries));
    return presentAcl(readAcl(svc.db, page.id), true);
  });
}

export function deleteAcl(svc: Services, caller: Caller, slug: string, path: string) {
  tx(svc.db, () => {
    const { page } = loadWritablePage(svc, caller, slug, path);
    // The page follows its space default from now on; the history the ACL governed keeps its readers.
    sealHistory(svc.db, page.id);
    changePageAccess(svc.db, page.id, () => replaceAcl(svc.db, page.id, null));
  });
  return presentAcl([], false);
}

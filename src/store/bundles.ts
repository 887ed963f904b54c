import { stmt, type Db } from './db.ts';
import { READABLE_PAGE, callerParams, type Caller } from '../domain/access.ts';

export type ExportRow = {
  path: string;
  title: string;
  content: string;
  frontmatter: string;
  metadata: string;
  version: number;
  updated_at: string;
};

/**
 * The next keyset batch of live pages of a space that the caller may read, in path order after
 * `afterPath`. `withAcl = false` leaves out pages that carry their own ACL (org template
 * snapshots: a template is visible to the whole organisation). Iterated, not materialised.
 */
export function iterateExportBatch(
  db: Db, caller: Caller, spaceId: number, afterPath: string, limit: number, withAcl = true,
): IterableIterator<ExportRow> {
  return stmt(db, `SELECT p.path, p.title, p.content, p.frontmatter, p.metadata, p.version, p.updated_at
                   FROM pages p JOIN spaces s ON s.id = p.space_id
                   WHERE p.space_id = @spaceId AND p.path > @after AND (@withAcl = 1 OR p.has_acl = 0)
                     AND ${READABLE_PAGE}
                   ORDER BY p.path LIMIT @limit`)
    .iterate({ ...callerParams(caller), spaceId, after: afterPath, limit, withAcl: withAcl ? 1 : 0 }) as IterableIterator<ExportRow>;
}

import { stmt } from './db/statements.ts';
import type { Db } from './db/types.ts';
import { READABLE_PAGE, callerParams } from './access-sql.ts';
import type { Caller } from '../model.ts';

type ExportBatch = { n: number; last: string | null; json: string | null };

/**
 * The next keyset batch of live pages of a space that the caller may read, in path order after
 * `afterPath`, as the bundle's page objects already written as JSON text and joined with commas
 * (SQLite builds the text: one string per batch instead of seven values and an object per
 * page, which is what kept an export's memory flat). Frontmatter and metadata are stored as
 * JSON text and spliced in as they are. `withAcl = false` leaves out pages that carry their own
 * ACL (org template snapshots: a template is visible to the whole organisation).
 */
export function readExportBatch(db: Db, caller: Caller, spaceId: number, afterPath: string, limit: number, withAcl = true): ExportBatch {
  return stmt(
    db,
    `SELECT count(*) AS n, max(path) AS last, string_agg(j, ',' ORDER BY path) AS json FROM (
                     SELECT p.path,
                            '{"path":' || json_quote(p.path) || ',"title":' || json_quote(p.title)
                            || ',"frontmatter":' || p.frontmatter || ',"content":' || json_quote(p.content)
                            || ',"version":' || p.version || ',"updatedAt":' || json_quote(p.updated_at)
                            || ',"metadata":' || p.metadata || '}' AS j
                     FROM pages p JOIN spaces s ON s.id = p.space_id
                     WHERE p.space_id = @spaceId AND p.path > @after AND (@withAcl = 1 OR p.has_acl = 0)
                       AND ${READABLE_PAGE}
                     ORDER BY p.path LIMIT @limit)`,
  ).get({ ...callerParams(caller), spaceId, after: afterPath, limit, withAcl: withAcl ? 1 : 0 }) as ExportBatch;
}

import { stmt } from './db/statements.ts';
import type { Db } from './db/types.ts';

// What each organisation stores, for SERVICE_ORG_QUOTA_BYTES (docs/operations.md "Limits"): the
// bytes of every live page's current state (content, frontmatter and metadata as stored) and of
// every attached file (live pages' and trashed pages', each in full), kept by triggers in the
// transaction of every write that changes them, so a check is one row read.

const PAGE_BYTES = (r: string) =>
  `(length(CAST(${r}.content AS BLOB)) + length(CAST(${r}.frontmatter AS BLOB)) + length(CAST(${r}.metadata AS BLOB)))`;
const ADD = (
  bytes: string,
  spaceId: string,
) => `INSERT INTO org_usage (org_id, bytes) SELECT org_id, ${bytes} FROM spaces WHERE id = ${spaceId}
    ON CONFLICT (org_id) DO UPDATE SET bytes = bytes + excluded.bytes;`;

/** The table, its triggers, and its rows counted from what is stored (schema version 16). */
export const ORG_USAGE_SQL = `CREATE TABLE org_usage (org_id INTEGER PRIMARY KEY REFERENCES orgs(id), bytes INTEGER NOT NULL);
CREATE TRIGGER org_usage_page_in AFTER INSERT ON pages WHEN NEW.deleted_at IS NULL
BEGIN
  ${ADD(PAGE_BYTES('NEW'), 'NEW.space_id')}
END;
CREATE TRIGGER org_usage_page_out AFTER UPDATE OF content, frontmatter, metadata, deleted_at, space_id ON pages WHEN OLD.deleted_at IS NULL
BEGIN
  ${ADD(`-${PAGE_BYTES('OLD')}`, 'OLD.space_id')}
END;
CREATE TRIGGER org_usage_page_back AFTER UPDATE OF content, frontmatter, metadata, deleted_at, space_id ON pages WHEN NEW.deleted_at IS NULL
BEGIN
  ${ADD(PAGE_BYTES('NEW'), 'NEW.space_id')}
END;
CREATE TRIGGER org_usage_file_in AFTER INSERT ON attachments
BEGIN
  ${ADD('NEW.size', 'NEW.space_id')}
END;
CREATE TRIGGER org_usage_file_change AFTER UPDATE OF size, space_id ON attachments
BEGIN
  ${ADD('-OLD.size', 'OLD.space_id')}
  ${ADD('NEW.size', 'NEW.space_id')}
END;
CREATE TRIGGER org_usage_file_out AFTER DELETE ON attachments
BEGIN
  ${ADD('-OLD.size', 'OLD.space_id')}
END;
INSERT INTO org_usage (org_id, bytes) SELECT o.id,
    coalesce((SELECT sum(${PAGE_BYTES('p')}) FROM pages p JOIN spaces s ON s.id = p.space_id WHERE s.org_id = o.id AND p.deleted_at IS NULL), 0)
    + coalesce((SELECT sum(a.size) FROM attachments a JOIN spaces s ON s.id = a.space_id WHERE s.org_id = o.id), 0)
  FROM orgs o;`;

/** The bytes organisation `orgId` stores (see above). */
export function orgUsage(db: Db, orgId: number): number {
  const row = stmt(db, 'SELECT bytes FROM org_usage WHERE org_id = ?').get(orgId) as { bytes: number } | undefined;
  return row?.bytes ?? 0;
}

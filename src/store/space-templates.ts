import { stmt } from './db/statements.ts';
import type { Db } from './db/types.ts';

export type OrgTemplateRow = {
  org_id: number;
  id: string;
  name: string;
  description: string;
  pages: number;
  bundle: string;
  source_space: string;
  created_by: string;
  created_at: string;
};
export type OrgTemplateListRow = Omit<OrgTemplateRow, 'bundle'>;

export function insertOrgTemplate(db: Db, row: OrgTemplateRow): void {
  stmt(
    db,
    `INSERT INTO org_space_templates (org_id, id, name, description, pages, bundle, source_space, created_by, created_at)
            VALUES (@org_id, @id, @name, @description, @pages, @bundle, @source_space, @created_by, @created_at)`,
  ).run(row);
}

/** An organisation's templates without their bundles, oldest first. */
export function listOrgTemplates(db: Db, orgId: number): OrgTemplateListRow[] {
  return stmt(
    db,
    `SELECT org_id, id, name, description, pages, source_space, created_by, created_at
                   FROM org_space_templates WHERE org_id = ? ORDER BY created_at, id`,
  ).all(orgId) as never;
}

export function findOrgTemplate(db: Db, orgId: number, id: string): OrgTemplateRow | undefined {
  return stmt(db, 'SELECT * FROM org_space_templates WHERE org_id = ? AND id = ?').get(orgId, id) as never;
}

export function orgTemplateExists(db: Db, orgId: number, id: string): boolean {
  return stmt(db, 'SELECT 1 FROM org_space_templates WHERE org_id = ? AND id = ?').get(orgId, id) !== undefined;
}

export function deleteOrgTemplate(db: Db, orgId: number, id: string): boolean {
  return stmt(db, 'DELETE FROM org_space_templates WHERE org_id = ? AND id = ?').run(orgId, id).changes > 0;
}

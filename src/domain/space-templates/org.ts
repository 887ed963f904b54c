import type { Services } from '../../services.ts';
import { AppError, forbidden, invalid, notFound } from '../errors.ts';
import { resolveSpace } from '../spaces.ts';
import { parseBundle, type ParsedBundle } from '../bundles/bundle.ts';
import { buildBundleText } from '../bundles/export.ts';
import * as store from '../../store/space-templates.ts';
import { TEMPLATE_ID } from './catalog.ts';
import { slugify } from '../../text/slug.ts';
import type { Caller } from '../../model.ts';

// Org-maintained space templates: an org admin snapshots a space into a bundle stored in the
// database; every member of that organisation (and no one else) sees it in the gallery.

export type GalleryEntry = { source: 'built-in' | 'remote' | 'org'; id: string; name: string; description: string; pages: number };
type SaveOrgTemplateInput = { space: string; id?: string; name: string; description?: string };

function present(r: store.OrgTemplateListRow): GalleryEntry {
  return { source: 'org', id: r.id, name: r.name, description: r.description, pages: r.pages };
}

/**
 * Builds the snapshot: only what every member of the organisation could read, since every member
 * sees the template. A personal space or one with defaultAccess none is refused (400 saying why);
 * of a shared space, the pages with their own ACL are left out.
 */
export function snapshotSpace(
  svc: Services,
  caller: Caller,
  input: SaveOrgTemplateInput,
): { text: string; bundle: ParsedBundle; space: string } {
  if (!caller.orgAdmin) throw forbidden('only org admins save space templates');
  if (input.id !== undefined && !TEMPLATE_ID.test(input.id)) {
    throw invalid([{ key: 'id', code: 'format', message: 'an id is 1–63 characters of a-z, 0-9 and -, starting with a letter or digit' }]);
  }
  const space = resolveSpace(svc, caller, input.space);
  if (space.owner_id !== null) {
    throw invalid([
      {
        key: 'space',
        code: 'format',
        message: 'a personal space cannot become an org template: only its owner may read it, and every member would see the template',
      },
    ]);
  }
  if (space.default_access === 'none') {
    throw invalid([
      {
        key: 'space',
        code: 'format',
        message: "this space has defaultAccess 'none': members cannot read it, and every member would see the template",
      },
    ]);
  }
  const text = buildBundleText(svc.db, caller, space, { exportedAt: svc.now(), withAcl: false, maxBytes: svc.config.limits.importBytes });
  return { text, bundle: parseBundle(JSON.parse(text), svc.config.limits), space: space.slug };
}

/** Stores a snapshot; inside a write. An `id` in use → 409; no id → one made from the name. */
export function saveOrgTemplate(
  svc: Services,
  caller: Caller,
  input: SaveOrgTemplateInput,
  snap: { text: string; bundle: ParsedBundle; space: string },
): GalleryEntry {
  let id = input.id;
  if (id !== undefined) {
    if (store.orgTemplateExists(svc.db, caller.orgId, id)) throw new AppError('conflict', `an org template '${id}' exists`);
  } else {
    const base = slugify(input.name, { ascii: true, max: 60 }) || 'template';
    id = base;
    for (let n = 2; store.orgTemplateExists(svc.db, caller.orgId, id); n++) id = `${base.slice(0, 58)}-${n}`;
  }
  const row: store.OrgTemplateRow = {
    org_id: caller.orgId,
    id,
    name: input.name,
    description: input.description ?? '',
    pages: snap.bundle.pages.length,
    bundle: snap.text,
    source_space: snap.space,
    created_by: caller.id,
    created_at: svc.now(),
  };
  store.insertOrgTemplate(svc.db, row);
  return present(row);
}

export function deleteOrgTemplate(svc: Services, caller: Caller, id: string): void {
  if (!caller.orgAdmin) throw forbidden('only org admins remove space templates');
  if (!store.deleteOrgTemplate(svc.db, caller.orgId, id)) throw notFound(`org space template '${id}'`);
}

export function listOrgTemplates(svc: Services, caller: Caller): GalleryEntry[] {
  return store.listOrgTemplates(svc.db, caller.orgId).map(present);
}

/** An org template of the caller's organisation, with its bundle; 404 for any other. */
export function loadOrgTemplate(svc: Services, caller: Caller, id: string): { entry: GalleryEntry; bundle: ParsedBundle } | null {
  const row = store.findOrgTemplate(svc.db, caller.orgId, id);
  if (!row) return null;
  return { entry: present(row), bundle: parseBundle(JSON.parse(row.bundle), svc.config.limits) };
}

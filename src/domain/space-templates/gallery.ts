import type { Services } from '../../services.ts';
import { notFound } from '../errors.ts';
import { presentSpace, type Space } from '../spaces.ts';
import type { ParsedBundle } from '../bundles/bundle.ts';
import { importBundle, type ImportResult } from '../bundles/import.ts';
import type { LoadedTemplate } from './catalog.ts';
import { localTemplates } from './local.ts';
import { listOrgTemplates, loadOrgTemplate, type GalleryEntry } from './org.ts';
import { remoteTemplates } from './remote.ts';
import type { Caller } from '../../model.ts';

// The one gallery: built-in (or the SERVICE_SPACE_TEMPLATES_PATH catalog), then remote, then the
// caller's organisation's own. Served from memory and the database only: never the network.

const entryOf = (t: LoadedTemplate): GalleryEntry => ({
  source: t.source,
  id: t.id,
  name: t.name,
  description: t.description,
  pages: t.pages,
});

export function listGallery(svc: Services, caller: Caller): GalleryEntry[] {
  return [...localTemplates(svc).map(entryOf), ...remoteTemplates(svc).map(entryOf), ...listOrgTemplates(svc, caller)];
}

function findTemplate(svc: Services, caller: Caller, source: string, id: string): { entry: GalleryEntry; bundle: ParsedBundle } {
  let found: { entry: GalleryEntry; bundle: ParsedBundle } | null = null;
  if (source === 'built-in' || source === 'remote') {
    const t = (source === 'built-in' ? localTemplates(svc) : remoteTemplates(svc)).find((x) => x.id === id);
    if (t) found = { entry: entryOf(t), bundle: t.bundle };
  } else if (source === 'org') {
    found = loadOrgTemplate(svc, caller, id);
  }
  if (!found) throw notFound(`space template '${source}/${id}'`);
  return found;
}

type NewSpaceFromTemplate = { slug: string; name?: string; description?: string };

/** Creates a new space (409 when the slug exists) and imports the template into it. */
export async function createSpaceFromTemplate(
  svc: Services,
  caller: Caller,
  source: string,
  id: string,
  input: NewSpaceFromTemplate,
): Promise<{ space: Space; import: ImportResult }> {
  const { entry, bundle } = findTemplate(svc, caller, source, id);
  const { space, result } = await importBundle(
    svc,
    caller,
    {
      slug: input.slug,
      mustBeNew: true,
      name: input.name ?? (bundle.space.name.trim() || entry.name),
      description: input.description ?? (bundle.space.description || entry.description),
    },
    bundle,
    'skip',
  );
  return { space: presentSpace(space), import: result };
}

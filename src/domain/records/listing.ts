import type { Services } from '../../services.ts';
import { resolveSpace } from '../spaces.ts';
import { listReadableTemplates } from '../../store/records.ts';
import { parseTemplatePage, templateNameOf } from './templates.ts';
import type { Caller, FieldDef, Metadata } from '../../model.ts';

// What pickers and clients list: templates across the organisation, record types of a space.

type TemplateItem = {
  space: string;
  name: string;
  path: string;
  title: string;
  description: string;
  recordType: boolean;
  fields?: FieldDef[];
  metadataDefaults?: Metadata;
  defaultPathPrefix?: string;
  content?: string;
};

/** Every template page the caller can read in the organisation (or in one space), by space and name. */
export function listTemplates(svc: Services, caller: Caller, q: { space: string | null; includeContent: boolean }): TemplateItem[] {
  const spaceId = q.space === null ? null : resolveSpace(svc, caller, q.space).id;
  return listReadableTemplates(svc.db, caller, spaceId, q.includeContent).map((row) => {
    const parsed = parseTemplatePage(svc.db, row);
    const item: TemplateItem = {
      space: row.space,
      name: templateNameOf(row.path)!,
      path: row.path,
      title: row.title,
      description: parsed.description,
      recordType: parsed.type !== null,
    };
    if (parsed.type) item.fields = parsed.type.fields;
    if (Object.keys(parsed.metadataDefaults).length) item.metadataDefaults = parsed.metadataDefaults;
    if (parsed.defaultPathPrefix !== null) item.defaultPathPrefix = parsed.defaultPathPrefix;
    if (q.includeContent) item.content = row.content ?? '';
    return item;
  });
}

type RecordTypeItem = {
  name: string;
  description: string;
  defaultPathPrefix: string | null;
  additionalKeys: 'allow' | 'reject';
  fields: FieldDef[];
};

/** The record types of a space that the caller can read, by name. */
export function listRecordTypes(svc: Services, caller: Caller, slug: string): RecordTypeItem[] {
  const space = resolveSpace(svc, caller, slug);
  const out: RecordTypeItem[] = [];
  for (const row of listReadableTemplates(svc.db, caller, space.id, false)) {
    const type = parseTemplatePage(svc.db, row).type;
    if (!type) continue;
    out.push({
      name: type.name,
      description: type.description,
      defaultPathPrefix: type.defaultPathPrefix,
      additionalKeys: type.additionalKeys,
      fields: type.fields,
    });
  }
  return out;
}

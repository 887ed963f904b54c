// The shapes of the answers, as valibot schemas: the OpenAPI document shows them and, under
// SERVICE_VALIDATE_RESPONSES=1, every answer is checked against them (src/http/response-check.ts).
// Objects are strict where the presenter is ours alone, so a field added without its schema fails a test.
import * as v from 'valibot';
import { Iso, NextCursor } from './schemas.ts';

const Scalar = v.union([v.string(), v.number(), v.boolean()]);
export const MetaValue = v.union([Scalar, v.array(Scalar)]);
export const Metadata = v.record(v.string(), MetaValue);
const Access = v.picklist(['write', 'read', 'none']);
const Ref = v.strictObject({ space: v.string(), path: v.string() });

export const Page = v.strictObject({
  space: v.string(),
  path: v.string(),
  title: v.string(),
  content: v.string(),
  frontmatter: v.record(v.string(), v.unknown()),
  metadata: Metadata,
  template: v.nullable(v.string()),
  version: v.number(),
  updatedAt: Iso,
});
// A PUT's answer: with a new title, the pages whose wikilinks followed it and those left (docs/api.md, Renaming a page).
export const WrittenPage = v.strictObject({ ...Page.entries, rewritten: v.optional(v.array(Ref)), notRewritten: v.optional(v.array(Ref)) });
export const RenderedPage = v.strictObject({ ...Page.entries, html: v.optional(v.string()) });
export const PageWithChanges = v.strictObject({ ...Page.entries, changedKeys: v.array(v.string()) });

export const Space = v.strictObject({
  slug: v.string(),
  name: v.string(),
  description: v.string(),
  defaultAccess: Access,
  personal: v.boolean(),
  createdAt: Iso,
  updatedAt: Iso,
});
export const SpaceList = v.strictObject({ spaces: v.array(Space), nextCursor: NextCursor });
export const PageList = v.strictObject({
  pages: v.array(
    v.strictObject({ path: v.string(), title: v.string(), version: v.number(), updatedAt: Iso, template: v.optional(v.string()) }),
  ),
  /** With `depth=1`: the subfolders of the level, each holding at least one readable page. */
  folders: v.optional(v.array(v.strictObject({ path: v.string() }))),
  nextCursor: NextCursor,
});

const Author = v.strictObject({ id: v.string(), kind: v.string(), name: v.string() });
export const RevisionList = v.strictObject({
  revisions: v.array(v.strictObject({ version: v.number(), title: v.string(), author: Author, createdAt: Iso })),
  nextCursor: NextCursor,
});
export const Revision = v.looseObject({
  space: v.string(),
  path: v.string(),
  version: v.number(),
  title: v.string(),
  content: v.string(),
  frontmatter: v.record(v.string(), v.unknown()),
  metadata: Metadata,
  author: Author,
  createdAt: Iso,
});
export const Acl = v.strictObject({ restricted: v.boolean(), read: v.array(v.string()), write: v.array(v.string()) });

export const Me = v.strictObject({ id: v.string(), name: v.string(), kind: v.picklist(['agent', 'user']), orgAdmin: v.boolean() });
export const Principal = Me;
export const KeyInfo = v.strictObject({ id: v.string(), prefix: v.string(), createdAt: Iso, revokedAt: v.nullable(Iso) });
export const NewKey = v.strictObject({ id: v.string(), key: v.string(), principalId: v.string() });

export const Webhook = v.strictObject({
  id: v.string(),
  url: v.string(),
  events: v.array(v.string()),
  spaceSlug: v.optional(v.string()),
  description: v.optional(v.string()),
  enabled: v.boolean(),
  createdAt: Iso,
  updatedAt: Iso,
});
export const WebhookWithSecret = v.strictObject({ ...Webhook.entries, secret: v.string() });
export const TestOutcome = v.strictObject({
  outcome: v.picklist(['delivered', 'failed', 'blocked']),
  status: v.optional(v.number()),
  error: v.optional(v.string()),
  durationMs: v.number(),
});
export const DeliveryLog = v.strictObject({
  deliveries: v.array(
    v.strictObject({
      id: v.string(),
      event: v.string(),
      attempt: v.number(),
      at: Iso,
      outcome: v.string(),
      status: v.optional(v.number()),
      error: v.optional(v.string()),
      durationMs: v.number(),
    }),
  ),
  nextCursor: NextCursor,
});

const FieldDef = v.looseObject({ key: v.string(), type: v.string() });
export const TemplateList = v.array(
  v.strictObject({
    space: v.string(),
    name: v.string(),
    path: v.string(),
    title: v.string(),
    description: v.string(),
    recordType: v.boolean(),
    fields: v.optional(v.array(FieldDef)),
    metadataDefaults: v.optional(Metadata),
    defaultPathPrefix: v.optional(v.string()),
    content: v.optional(v.string()),
  }),
);
export const RecordTypeList = v.array(
  v.strictObject({
    name: v.string(),
    description: v.string(),
    defaultPathPrefix: v.nullable(v.string()),
    additionalKeys: v.picklist(['allow', 'reject']),
    fields: v.array(FieldDef),
  }),
);
const MetaPage = v.strictObject({
  space: v.string(),
  path: v.string(),
  title: v.string(),
  version: v.number(),
  updatedAt: Iso,
  metadata: Metadata,
});
export const MetaPageList = v.strictObject({ pages: v.array(MetaPage), nextCursor: NextCursor });
const IssueShape = v.strictObject({ key: v.string(), code: v.string(), message: v.string() });
export const Nonconforming = v.array(v.strictObject({ path: v.string(), issues: v.array(IssueShape) }));

export const SearchHits = v.strictObject({
  hits: v.array(
    v.strictObject({
      space: v.string(),
      path: v.string(),
      title: v.string(),
      /** HTML: the page's text (no Markdown syntax) around the matches, each in <mark>. */
      snippet: v.string(),
      /** The heading the snippet's first match is under; absent when there is none. */
      heading: v.optional(v.string()),
      score: v.number(),
    }),
  ),
  nextCursor: NextCursor,
});
export const TitleHits = v.strictObject({ hits: v.array(v.strictObject({ space: v.string(), path: v.string(), title: v.string() })) });
export const KeyList = v.array(v.strictObject({ key: v.string(), types: v.array(v.string()), pages: v.number() }));

export const PageLinks = v.strictObject({
  outbound: v.array(v.strictObject({ space: v.string(), path: v.string(), exists: v.boolean() })),
  backlinks: v.array(v.strictObject({ space: v.string(), path: v.string(), title: v.string() })),
  nextCursor: NextCursor,
});
export const BrokenLinks = v.array(v.strictObject({ source: Ref, target: Ref }));
export const RebuildResult = v.strictObject({ pages: v.number(), links: v.number() });
export const IndexesRebuilt = v.strictObject({ indexes: v.array(v.string()), pages: v.number() });

export const ImportResult = v.strictObject({
  created: v.number(),
  updated: v.number(),
  skipped: v.number(),
  errors: v.array(v.looseObject({})),
});
export const GalleryEntry = v.strictObject({
  source: v.picklist(['built-in', 'remote', 'org']),
  id: v.string(),
  name: v.string(),
  description: v.string(),
  pages: v.number(),
});
export const SpaceFromTemplate = v.strictObject({ space: Space, import: ImportResult });

// The change feed (GET /changes; each event of GET /changes/stream is one Change).
export const Change = v.strictObject({
  txid: v.number(),
  at: Iso,
  event: v.picklist(['page.created', 'page.updated', 'page.deleted', 'page.moved', 'page.restored', 'file.put', 'file.deleted']),
  space: v.string(),
  path: v.string(),
  from: v.optional(Ref),
  version: v.optional(v.number()),
  actor: v.strictObject({ id: v.string(), kind: v.string() }),
});
export const ChangeList = v.strictObject({ changes: v.array(Change), nextSince: v.number() });

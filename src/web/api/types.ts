// Shapes of the kspace HTTP API as the web app reads them: each inferred from the answer schema
// the server checks its answers against (src/http/answers.ts), so the two cannot drift apart.
// Type-only imports: nothing of the server enters the bundle.
import type * as v from 'valibot';
import type * as A from '../../http/answers.ts';
import type { FieldDef, MetaValue } from '../../model.ts';

type Out<S extends v.GenericSchema> = v.InferOutput<S>;
type Item<T> = T extends Array<infer I> ? I : never;

export type Principal = Out<typeof A.Principal>;
export type Session = { principal: Principal; csrfToken: string };
export type Space = Out<typeof A.Space>;
export type PageSummary = Item<Out<typeof A.PageList>['pages']>;
export type Page = Out<typeof A.RenderedPage>;
export type RevisionSummary = Item<Out<typeof A.RevisionList>['revisions']>;
export type Revision = Out<typeof A.Revision> & { html?: string };
export type Links = Omit<Out<typeof A.PageLinks>, 'nextCursor'>;
export type BrokenLink = Item<Out<typeof A.BrokenLinks>>;
export type Acl = Out<typeof A.Acl>;
export type RecordRow = Item<Out<typeof A.MetaPageList>['pages']>;
export type SearchHit = Item<Out<typeof A.SearchHits>['hits']>;
export type MetaKey = Item<Out<typeof A.KeyList>>;
export type GalleryEntry = Out<typeof A.GalleryEntry>;
export type ApiKeyInfo = Out<typeof A.KeyInfo>;
export type NewApiKey = Out<typeof A.NewKey>;
export type Webhook = Out<typeof A.Webhook> & { secret?: string };
export type Delivery = Item<Out<typeof A.DeliveryLog>['deliveries']>;
export type TestResult = Out<typeof A.TestOutcome>;

// Templates and record types: the answer schemas declare their fields loosely (`{key, type}` and
// more), so the fields are given their full shape, the one the server's record checks use.
export type Template = Omit<Item<Out<typeof A.TemplateList>>, 'fields'> & { fields?: FieldDef[] };
export type RecordType = Omit<Item<Out<typeof A.RecordTypeList>>, 'fields'> & { fields: FieldDef[] };
export type FilterOp = 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'contains' | 'exists' | 'missing';
export interface Filter {
  key: string;
  op: FilterOp;
  value?: MetaValue;
}
export const WEBHOOK_EVENTS = ['page.created', 'page.updated', 'page.deleted', 'page.metadata.updated'] as const;
interface PageFile {
  name: string;
  size: number;
  contentType: string;
  sha256: string;
  createdAt: string;
  url: string;
}
export interface FileList {
  files: PageFile[];
  nextCursor: string | null;
}

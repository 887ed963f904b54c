// Shapes of the kspace HTTP API as the web app reads them (docs/api.md, search.md, record-types.md).

export type MetaScalar = string | number | boolean;
export type MetaValue = MetaScalar | MetaScalar[];
export type Metadata = Record<string, MetaValue>;

export interface Issue { key: string; code: string; message: string }

export interface Principal { id: string; name: string; kind: 'user' | 'agent'; orgAdmin: boolean }
export interface Session { principal: Principal; csrfToken: string }

export interface Space {
  slug: string; name: string; description: string | null; defaultAccess: 'write' | 'read' | 'none';
  personal: boolean; createdAt: string; updatedAt: string;
}

export interface PageSummary { path: string; title: string; version: number; updatedAt: string; template?: string | null }

export interface Page {
  space: string; path: string; title: string; content: string;
  frontmatter: Record<string, unknown>; metadata: Metadata; template: string | null;
  version: number; updatedAt: string; html?: string;
}

export interface Author { id: string; kind: string; name: string }
export interface RevisionSummary { version: number; title: string; author: Author; createdAt: string }
export interface Revision {
  space: string; path: string; version: number; title: string; content: string;
  frontmatter: Record<string, unknown>; metadata: Metadata; author: Author; createdAt: string; html?: string;
}

export interface Links {
  outbound: { space: string; path: string; exists: boolean }[];
  backlinks: { space: string; path: string; title: string }[];
}
export interface BrokenLink { source: { space: string; path: string }; target: { space: string; path: string } }

export interface Acl { restricted: boolean; read: string[]; write: string[] }

export type FieldType = 'string' | 'text' | 'number' | 'boolean' | 'date' | 'select' | 'multiselect' | 'list' | 'url';
export interface Field {
  key: string; type: FieldType; label?: string; description?: string; required?: boolean;
  default?: MetaValue; options?: string[]; min?: number; max?: number;
}

export interface Template {
  space: string; name: string; path: string; title: string; description: string | null;
  recordType: boolean; fields?: Field[]; metadataDefaults?: Metadata; defaultPathPrefix?: string; content?: string;
}
export interface RecordType { name: string; description: string | null; defaultPathPrefix: string | null; additionalKeys: 'allow' | 'reject'; fields: Field[] }
export interface RecordRow { space: string; path: string; title: string; version: number; updatedAt: string; metadata: Metadata }

export type FilterOp = 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'contains' | 'exists' | 'missing';
export interface Filter { key: string; op: FilterOp; value?: MetaValue }

export interface SearchHit { space: string; path: string; title: string; snippet: string; score: number }
export interface MetaKey { key: string; types: string[]; pages: number }

export interface GalleryEntry { source: 'built-in' | 'remote' | 'org'; id: string; name: string; description: string | null; pages: number }

export interface ApiKeyInfo { id: string; prefix: string; createdAt: string; revokedAt: string | null }
export interface NewApiKey { id: string; key: string; principalId: string }

export const WEBHOOK_EVENTS = ['page.created', 'page.updated', 'page.deleted', 'page.metadata.updated'] as const;
export interface Webhook {
  id: string; url: string; events: string[]; spaceSlug?: string | null; description?: string | null;
  enabled: boolean; createdAt: string; updatedAt: string; secret?: string;
}
export interface Delivery { id: string; event: string; attempt: number; at: string; outcome: string; status?: number; error?: string; durationMs: number }
export interface TestResult { outcome: string; status?: number; error?: string; durationMs: number }


export interface PageFile { name: string; size: number; contentType: string; sha256: string; createdAt: string; url: string }
export interface FileList { files: PageFile[]; nextCursor: string | null }

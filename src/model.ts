// Types shared by every layer, declared once at the bottom of the house: store/ (SQL), domain/
// (rules) and http/, mcp/, cli/ (doors) all import from here and never the other way round.

/** One problem with one field of the input: `key` names the field, `code` is stable. */
export type Issue = { key: string; code: string; message: string };

/** The principal a request acts for. */
export type Caller = {
  id: string;
  name: string;
  kind: 'agent' | 'user';
  orgId: number;
  orgAdmin: boolean;
};

export type SpaceAccessRow = { id: number; org_id: number; owner_id: string | null; default_access: 'write' | 'read' | 'none' };
export type PageAccessRow = { id: number; has_acl: number; deleted_at: string | null };
export type AclEntry = { principal_id: string; perm: 'read' | 'write' };

/** Metadata values: a string, finite number, boolean or ISO date string, or a list of those. */
export type Scalar = string | number | boolean;
export type MetaValue = Scalar | Scalar[];
export type Metadata = Record<string, MetaValue>;

/** A field of a record type (a template's `metadataSchema`): what the web form and the record checks read. */
export type FieldType = 'string' | 'text' | 'number' | 'boolean' | 'date' | 'select' | 'multiselect' | 'list' | 'url';
export type FieldDef = {
  key: string;
  type: FieldType;
  required?: boolean;
  default?: MetaValue;
  label?: string;
  description?: string;
  options?: string[];
  min?: number;
  max?: number;
};

/** A metadata value as the index stores it: 's' string, 'n' number, 'b' boolean (0/1), 'd' date (epoch ms). */
export type MetaType = 's' | 'n' | 'b' | 'd';
export type TypedValue = { t: MetaType; v: string | number };
/** One row of the metadata index: pos -1 for a scalar, 0..n-1 for list items. */
export type IndexRow = { key: string; pos: number; t: MetaType; v: string | number };

/** One validated metadata filter, its value typed as page_meta stores it. */
export type Condition =
  | { op: 'eq' | 'neq' | 'contains' | 'gt' | 'gte' | 'lt' | 'lte'; key: string; value: TypedValue }
  | { op: 'exists' | 'missing'; key: string }
  | { op: 'in'; key: string; values: TypedValue[] };

/** Named parameters bound into a statement. */
export type Params = Record<string, string | number>;

/** What a change of the change feed records (docs/changes.md). */
export type ChangeEvent = 'page.created' | 'page.updated' | 'page.deleted' | 'page.moved' | 'page.restored' | 'file.put' | 'file.deleted';

/** One change of the change feed, GET /changes (its answer schema: http/answers.ts, Change). */
export type Change = {
  txid: number;
  at: string;
  event: ChangeEvent;
  space: string;
  path: string;
  from?: { space: string; path: string };
  version?: number;
  actor: { id: string; kind: string };
};

/** A page address: a space slug and a path inside it. */
export type PageRef = { space: string; path: string };

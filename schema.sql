-- kspace schema. Applied whole to a new database; src/store/migrations.ts upgrades older ones
-- (PRAGMA user_version holds the version this file describes: see SCHEMA_VERSION there).
-- Conventions: timestamps are ISO 8601 UTC strings with milliseconds (a column says where it holds
-- epoch milliseconds instead); JSON columns hold text.

CREATE TABLE orgs (
  id          INTEGER PRIMARY KEY,
  slug        TEXT NOT NULL UNIQUE,
  name        TEXT NOT NULL,
  created_at  TEXT NOT NULL
);

CREATE TABLE principals (
  id            TEXT PRIMARY KEY,                 -- 'p_' + random
  org_id        INTEGER NOT NULL REFERENCES orgs(id),
  name          TEXT NOT NULL UNIQUE,             -- unique per deployment: personal space slugs are '~' || name
  kind          TEXT NOT NULL CHECK (kind IN ('agent', 'user')),
  org_admin     INTEGER NOT NULL DEFAULT 0,
  password_hash TEXT,                             -- scrypt, users only
  created_at    TEXT NOT NULL
);

CREATE TABLE api_keys (
  id           TEXT PRIMARY KEY,                  -- 'k_' + random
  principal_id TEXT NOT NULL REFERENCES principals(id),
  hash         TEXT NOT NULL UNIQUE,              -- sha256 hex of the key; the key itself is never stored
  prefix       TEXT NOT NULL,                     -- first characters, to recognise a key in lists
  created_at   TEXT NOT NULL,
  revoked_at   TEXT
);

CREATE TABLE sessions (
  id_hash      TEXT PRIMARY KEY,                  -- sha256 hex of the cookie value
  principal_id TEXT NOT NULL REFERENCES principals(id),
  created_at   TEXT NOT NULL,
  expires_at   TEXT NOT NULL,                     -- absolute expiry (SERVICE_SESSION_MAX_DAYS)
  last_seen_at TEXT NOT NULL DEFAULT '',          -- idle expiry counts from here (SERVICE_SESSION_IDLE_MINUTES)
  user_agent   TEXT NOT NULL DEFAULT ''
);
CREATE INDEX sessions_principal ON sessions(principal_id);

CREATE TABLE spaces (
  id             INTEGER PRIMARY KEY,
  org_id         INTEGER NOT NULL REFERENCES orgs(id),
  slug           TEXT NOT NULL UNIQUE,
  name           TEXT NOT NULL,
  description    TEXT NOT NULL DEFAULT '',
  default_access TEXT NOT NULL DEFAULT 'write' CHECK (default_access IN ('write', 'read', 'none')),
  owner_id       TEXT REFERENCES principals(id),  -- set only for personal spaces
  created_by     TEXT REFERENCES principals(id),
  created_at     TEXT NOT NULL,
  updated_at     TEXT NOT NULL,
  deleted_at     TEXT,                            -- set while the space is in the org trash
  deleted_by     TEXT REFERENCES principals(id)
);

-- The current state of every page. A deleted page keeps its row (deleted_at set) so that its
-- revisions keep their parent and a later write continues the version numbering.
CREATE TABLE pages (
  id          INTEGER PRIMARY KEY,
  space_id    INTEGER NOT NULL REFERENCES spaces(id),
  path        TEXT NOT NULL,
  title       TEXT NOT NULL,
  content     TEXT NOT NULL,
  frontmatter TEXT NOT NULL DEFAULT '{}',
  metadata    TEXT NOT NULL DEFAULT '{}',
  template    TEXT,                               -- record type name (the metadata.template stamp)
  version     INTEGER NOT NULL,
  has_acl     INTEGER NOT NULL DEFAULT 0,
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL,
  deleted_at  TEXT,
  UNIQUE (space_id, path)
);
-- A wikilink `[[Some Title]]` finds the one page of its space titled so (case-insensitive).
CREATE INDEX pages_title ON pages(space_id, title COLLATE NOCASE);

-- The old addresses of moved pages (POST /spaces/:slug/moves): each answers 308 to the page's
-- current address until a page is written there (that write removes the row). By page id, so a
-- page moved twice is found from either old address.
CREATE TABLE redirects (
  space_id   INTEGER NOT NULL REFERENCES spaces(id),
  path       TEXT NOT NULL,
  page_id    INTEGER NOT NULL REFERENCES pages(id),
  created_at TEXT NOT NULL,
  PRIMARY KEY (space_id, path)
) WITHOUT ROWID;
CREATE INDEX redirects_page ON redirects(page_id);

-- The trash: one row per deleted page (pages.deleted_at set) deleted since schema version 6:
-- who deleted it, and its own ACL when deleted (readers: ',id1,id2,' as revisions.readers, NULL
-- without one; acl: JSON [{principal_id, perm}]) so that the trash lists it only to those who
-- could read it and a restore brings the ACL back. A write at the path (or a restore) removes it.
CREATE TABLE trash (
  page_id    INTEGER PRIMARY KEY REFERENCES pages(id),
  deleted_by TEXT NOT NULL REFERENCES principals(id),
  readers    TEXT,
  acl        TEXT
);

-- Attachments (issue 21): files attached to a page, by page id, so a move or the trash needs
-- nothing; the bytes are content-addressed blobs, stored once however often they are attached,
-- in chunks of 1 MiB (a range request reads only the chunks it needs; no row nears SQLite's
-- 1 GB value limit). In the database, so backups, restores and replicas carry them as they are.
CREATE TABLE blobs (
  sha256     TEXT PRIMARY KEY,                    -- lowercase hex of the whole content
  size       INTEGER NOT NULL,
  chunk_size INTEGER NOT NULL,
  created_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE blob_chunks (
  sha256 TEXT NOT NULL REFERENCES blobs(sha256),
  n      INTEGER NOT NULL,                        -- 0, 1, … in order
  data   BLOB NOT NULL,
  PRIMARY KEY (sha256, n)
);
CREATE TABLE attachments (
  page_id      INTEGER NOT NULL REFERENCES pages(id),
  name         TEXT NOT NULL,                     -- one path segment, NFC
  space_id     INTEGER NOT NULL REFERENCES spaces(id), -- the page's (kept by the trigger below): the quota's sum
  sha256       TEXT NOT NULL REFERENCES blobs(sha256),
  content_type TEXT NOT NULL,                     -- sniffed from the bytes (src/domain/attachments/sniff.ts)
  size         INTEGER NOT NULL,
  created_at   TEXT NOT NULL,
  created_by   TEXT NOT NULL REFERENCES principals(id),
  source       TEXT,                              -- its path in the folder it was imported from (a vault's layout), else NULL
  PRIMARY KEY (page_id, name)
) WITHOUT ROWID;
CREATE INDEX attachments_blob ON attachments(sha256);
CREATE INDEX attachments_space ON attachments(space_id, size);
-- A page moved to another space takes its files' bytes to that space's quota.
CREATE TRIGGER attachments_follow_page AFTER UPDATE OF space_id ON pages WHEN NEW.space_id <> OLD.space_id
BEGIN
  UPDATE attachments SET space_id = NEW.space_id WHERE page_id = NEW.id;
END;

-- Append-only history: triggers below refuse UPDATE and DELETE. A revision's frontmatter,
-- metadata and content are stored once (src/store/revision-codec.ts): the newest revision's are
-- the page row's; each older one's are in `prev` of the revision after it, as a compressed reverse
-- delta against that newer state (whole every 8 versions). A rowid table: rows are appended in
-- write order, so its pages fill up, and a row of any size stays on its page.
CREATE TABLE revisions (
  id          INTEGER PRIMARY KEY,
  page_id     INTEGER NOT NULL REFERENCES pages(id),
  version     INTEGER NOT NULL,
  title       TEXT NOT NULL,
  author_id   TEXT NOT NULL REFERENCES principals(id),
  created_at  INTEGER NOT NULL,                   -- epoch milliseconds
  readers     TEXT,                               -- the page's own ACL when written: NULL = none, else
                                                  -- ',id1,id2,' of its principals (',' = nobody)
  prev        BLOB,                               -- version - 1's state (NULL for version 1)
  UNIQUE (page_id, version)
);

CREATE TRIGGER revisions_no_update BEFORE UPDATE ON revisions
BEGIN SELECT RAISE(ABORT, 'revisions are append-only'); END;
CREATE TRIGGER revisions_no_delete BEFORE DELETE ON revisions
BEGIN SELECT RAISE(ABORT, 'revisions are append-only'); END;

-- Metadata index: one row per scalar value (pos = -1) or list item (pos = 0..n-1) of a live page.
-- t: 's' string, 'n' number, 'b' boolean (v = 0/1), 'd' ISO date (v = epoch milliseconds, so
-- dates compare chronologically whatever their written form). Derived from pages.metadata and
-- rebuildable from it.
CREATE TABLE page_meta (
  page_id INTEGER NOT NULL REFERENCES pages(id),
  key     TEXT NOT NULL,
  pos     INTEGER NOT NULL,
  t       TEXT NOT NULL,
  v,                                              -- no declared type: an ANY column would have NUMERIC
                                                  -- affinity and store the string '007' as the number 7
  PRIMARY KEY (page_id, key, pos)
) WITHOUT ROWID;
CREATE INDEX page_meta_kv ON page_meta(key, t, v, page_id);

-- Page ACLs: a page with has_acl = 1 is readable only by the principals listed here (and org
-- admins); perm 'write' implies read.
CREATE TABLE page_acl (
  page_id      INTEGER NOT NULL REFERENCES pages(id),
  principal_id TEXT NOT NULL REFERENCES principals(id),
  perm         TEXT NOT NULL CHECK (perm IN ('read', 'write')),
  PRIMARY KEY (page_id, principal_id)
) WITHOUT ROWID;
CREATE INDEX page_acl_principal ON page_acl(principal_id, page_id);

-- History access (docs/security.md): when a page's own ACL is dropped (the page deleted, or its
-- ACL removed), the history it governed stays readable only by that ACL's readers, whatever
-- happens to the path later. A revision is readable (beyond the live page's own rules) only if
-- every row covering it (up_to >= version) lists the caller; org admins in shared spaces and the
-- owner of a personal space read all. Append-only, like revisions.
CREATE TABLE history_access (
  page_id  INTEGER NOT NULL REFERENCES pages(id),
  up_to    INTEGER NOT NULL,                      -- covers versions 1..up_to
  readers  TEXT NOT NULL,                         -- ',id1,id2,' (',' = nobody but admins/owner)
  PRIMARY KEY (page_id, up_to, readers)
) WITHOUT ROWID;

-- A move into another space leaves the history behind under the rules of the space it left
-- (docs/security.md "Moves"): versions 1..up_to stay readable only by those who could read the
-- page there (besides every other rule): the owner of a personal space; in a shared space, org
-- admins and `readers` (',id1,id2,' the page's ACL readers, ',' nobody else, '*' every member).
CREATE TABLE move_history (
  page_id  INTEGER NOT NULL REFERENCES pages(id),
  up_to    INTEGER NOT NULL,
  space_id INTEGER NOT NULL REFERENCES spaces(id),  -- the space the page left
  readers  TEXT NOT NULL,
  PRIMARY KEY (page_id, up_to, space_id, readers)
) WITHOUT ROWID;

-- The title index (GET /search/titles, src/store/title-words.ts): each live page's folded words
-- of its title, aliases and path (whole 0), and its whole folded title and aliases (whole 1),
-- searched by prefix ranges on `word`; title_order checks further words and ranks. A page's rows
-- are found by the words its title_order row holds (no index by page id).
CREATE TABLE title_words (
  word    TEXT NOT NULL,
  whole   INTEGER NOT NULL,
  page_id INTEGER NOT NULL REFERENCES pages(id),
  PRIMARY KEY (whole, word, page_id)
) WITHOUT ROWID;
-- Each live page in the order of GET /search/titles's groups (shorter titles, then recently
-- changed), with its access columns and title index words (store/title-words-schema.ts). The key
-- holds that order reversed, read backwards: a write appends its row to its title length's rows.
CREATE TABLE title_order (
  len        INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,                    -- the page's, in epoch milliseconds
  page_id    INTEGER NOT NULL REFERENCES pages(id),
  space_id   INTEGER NOT NULL,
  has_acl    INTEGER NOT NULL,
  wholes     TEXT NOT NULL,
  words      TEXT NOT NULL,
  PRIMARY KEY (len DESC, updated_at, page_id DESC)
) WITHOUT ROWID;
CREATE INDEX title_order_page ON title_order(page_id);

-- Events outbox, written in the same transaction as the change it describes, when an enabled
-- subscription can receive the event (src/store/events.ts). The webhook dispatcher reads rows
-- with dispatched_at IS NULL after commit; nothing committed is lost.
CREATE TABLE events (
  id            INTEGER PRIMARY KEY,
  event         TEXT NOT NULL,
  occurred_at   TEXT NOT NULL,
  org_id        INTEGER NOT NULL,
  space_id      INTEGER,
  personal      INTEGER NOT NULL DEFAULT 0,       -- personal-space activity never emits webhooks
  payload       TEXT NOT NULL,                    -- JSON: {event, occurredAt, actor, page, changedKeys?}
  dispatched_at TEXT,
  from_space_id INTEGER                           -- page.moved into another space: the space it left
);
CREATE INDEX events_pending ON events(id) WHERE dispatched_at IS NULL;

-- ---------------------------------------------------------------------------------------------
-- Space templates (issue 5): org-maintained templates, snapshots of a space in the export-bundle
-- format, visible only inside their organisation. The built-in and remote catalogs are files.
CREATE TABLE org_space_templates (
  org_id      INTEGER NOT NULL REFERENCES orgs(id),
  id          TEXT NOT NULL,                      -- [a-z0-9][a-z0-9-]{0,62}, unique per organisation
  name        TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  pages       INTEGER NOT NULL,                   -- page count of the bundle, for the gallery
  bundle      TEXT NOT NULL,                      -- the bundle JSON
  source_space TEXT NOT NULL,                     -- slug of the space it was saved from
  created_by  TEXT NOT NULL REFERENCES principals(id),
  created_at  TEXT NOT NULL,
  PRIMARY KEY (org_id, id)
) WITHOUT ROWID;

-- Webhooks (issue 6). Subscriptions, their deliveries (the dispatcher's persistent timer table:
-- a pending delivery waits for next_attempt_at, so a restart resumes it) and every attempt.

CREATE TABLE webhooks (
  id          TEXT PRIMARY KEY,                   -- 'wh_' + random
  org_id      INTEGER NOT NULL REFERENCES orgs(id),
  url         TEXT NOT NULL,
  events      TEXT NOT NULL,                      -- JSON array of event names
  space_id    INTEGER REFERENCES spaces(id),      -- the spaceSlug filter; NULL = every shared space
  description TEXT,
  -- On from active_since (creation, or the last re-enable) until disabled_at (NULL = enabled).
  -- An event gets a delivery when it happened inside that window, however late the dispatcher
  -- reads it from the outbox.
  active_since TEXT NOT NULL,
  disabled_at TEXT,
  secret      BLOB NOT NULL,                      -- AES-256-GCM sealed (src/domain/secrets.ts); never plaintext
  created_at  TEXT NOT NULL,
  updated_at  TEXT NOT NULL
);
CREATE INDEX webhooks_org ON webhooks(org_id, created_at);

-- One row per (event, subscription). `id` is X-Service-Delivery and webhook-id on every attempt;
-- `body` holds the exact JSON bytes sent (and signed) each time. Ids are time-ordered, so new
-- rows append to the primary key instead of landing all over it.
CREATE TABLE webhook_deliveries (
  id              TEXT PRIMARY KEY,               -- 'dlv_' + 12 hex of epoch ms + 16 hex random
  webhook_id      TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  event_id        INTEGER,                        -- the outbox row (NULL for webhook.test)
  event           TEXT NOT NULL,
  body            BLOB NOT NULL,
  status          TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'blocked')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER,                        -- epoch ms; NULL once finished
  claimed         INTEGER NOT NULL DEFAULT 0,     -- held in memory by the running dispatcher; cleared at its start
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL
);
-- One index serves the due rows of a subscription (webhook_id, 'pending', 0, time range), the
-- retry timer (MIN per subscription) and the cascade when a subscription is deleted.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(webhook_id, status, claimed, next_attempt_at);

-- The delivery log: every attempt's outcome, newest first by id. It goes with its subscription.
CREATE TABLE webhook_attempts (
  id          INTEGER PRIMARY KEY,
  delivery_id TEXT NOT NULL,                      -- webhook_deliveries.id (removed with it, through webhook_id)
  webhook_id  TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  attempt     INTEGER NOT NULL,                   -- 1 = first try
  at          TEXT NOT NULL,
  outcome     TEXT NOT NULL CHECK (outcome IN ('delivered', 'failed', 'retrying', 'blocked')),
  http_status INTEGER,
  error       TEXT,
  duration_ms INTEGER NOT NULL
);
CREATE INDEX webhook_attempts_log ON webhook_attempts(webhook_id, id);

-- ---- Search and links (issue 3) -------------------------------------------------------------
-- All three are derived from pages and rebuilt by POST /admin/indexes/rebuild; the indexes of
-- src/domain/indexes/ keep them current inside every page write's transaction.

-- Full-text index work: a row for every page write that changed a title or body (or deleted
-- the page), in the write's own transaction. The index itself is kspace-fts.db, kept by the
-- helper process off the write path (src/store/fts-index.ts); rows it holds are trimmed.
-- AUTOINCREMENT: sequence numbers never go back, even when every row has been trimmed.
CREATE TABLE fts_queue (
  seq     INTEGER PRIMARY KEY AUTOINCREMENT,
  page_id INTEGER NOT NULL
);

-- Small named values of derived data, and 'cursor_key', the secret that seals list cursors
-- (src/store/cursor-key.ts); 'fts_generation' ties kspace-fts.db to this database;
-- 'wikilinks_indexed' says every page's wikilinks are in the link index (a database upgraded from
-- before version 8 gets it once src/domain/links/wikilink-backfill.ts has read its pages).
CREATE TABLE derived_state (
  name  TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
INSERT INTO derived_state (name, value) VALUES ('wikilinks_indexed', 'since the database was made');
INSERT INTO derived_state (name, value) VALUES ('changes_floor', '0');

-- Outbound links of live pages, by target address rather than target id: a link to a page that
-- does not exist (yet) is an ordinary row, so it resolves the moment the page is created and
-- breaks again when it is deleted, with nothing to update. ord keeps the order of appearance.
CREATE TABLE links (
  source_id    INTEGER NOT NULL REFERENCES pages(id),
  target_space TEXT NOT NULL,                     -- space slug (may name no space)
  target_path  TEXT NOT NULL,
  ord          INTEGER NOT NULL,
  PRIMARY KEY (source_id, target_space, target_path)
) WITHOUT ROWID;
CREATE INDEX links_target ON links(target_space, target_path, source_id);

-- Where a page's wikilinks are filed for re-resolution (docs/search.md "Wikilinks"): a wikilink
-- `[[x]]` resolves by what exists (the page's folder, the space root, a unique title, another
-- space), so when a page appears in, leaves or changes title in `space`, the pages whose
-- wikilinks are filed under its lower-cased title or a lower-cased trailing part of its path
-- are indexed again (only the wikilinks filed under the keys that changed are resolved again:
-- the others keep `target`). Kept with links, in the same write.
CREATE TABLE wikilink_keys (
  space     TEXT NOT NULL,                        -- space slug (may name no space)
  key       TEXT NOT NULL,
  source_id INTEGER NOT NULL REFERENCES pages(id),
  target    TEXT,                                 -- what they resolve to ('space/path', '' none; NULL: several)
  PRIMARY KEY (space, key, source_id)
) WITHOUT ROWID;
CREATE INDEX wikilink_keys_source ON wikilink_keys(source_id);

-- Metadata key discovery, counted per space and per "reader set" so that a caller's counts are
-- a sum over the groups it may read (see READABLE_GROUP in src/domain/access.ts), never a scan
-- of page_meta. readers: '' = the page has no ACL (the space default applies), otherwise the
-- page ACL's principal ids as ',id1,id2,' (sorted; ',' for an empty ACL). type: '' counts pages
-- that have the key; 'string' | 'number' | 'boolean' | 'date' | 'list' count pages whose value
-- has that type (a list also counts the types of its items).
CREATE TABLE meta_key_stats (
  space_id INTEGER NOT NULL REFERENCES spaces(id),
  readers  TEXT NOT NULL,
  key      TEXT NOT NULL,
  type     TEXT NOT NULL,
  pages    INTEGER NOT NULL,
  PRIMARY KEY (space_id, readers, key, type)
) WITHOUT ROWID;

-- A person's favourite pages (GET/PUT/DELETE /me/favourites). By page id: a favourite follows
-- its page through moves, hides while it is deleted or unreadable, and shows again on restore.
CREATE TABLE favourites (
  principal_id TEXT NOT NULL REFERENCES principals(id),
  page_id      INTEGER NOT NULL REFERENCES pages(id),
  created_at   TEXT NOT NULL,
  PRIMARY KEY (principal_id, page_id)
) WITHOUT ROWID;

-- The change feed (GET /changes, /changes/stream; src/store/changes.ts): one row per change to a
-- page or a file, written in the transaction of the change, numbered with the txid that
-- transaction commits as (the txid row is advanced just before COMMIT, so it is n + 1 inside).
-- Who may see a row is kept with it, in the format of meta_key_stats.readers ('' without an ACL,
-- else ',id1,id2,'): `readers` after the change (NULL: nobody, the page is gone), `from_readers`
-- before it for a delete, a move and an ACL change ('page.access', shown as page.created or
-- page.deleted to those it lets in or out). Rows older than SERVICE_CHANGES_RETENTION_DAYS go;
-- derived_state 'changes_floor' is the highest txid whose rows are gone (an older `since`: 410).
-- Keyed by commit: seq numbers a transaction's changes from 0; the feed and the pruning read
-- txid ranges of the key, and rows append to it. `at` in epoch milliseconds (ISO in the API).
CREATE TABLE changes (
  txid          INTEGER NOT NULL,
  seq           INTEGER NOT NULL,
  at            INTEGER NOT NULL,
  event         INTEGER NOT NULL,                 -- its number in EVENTS (store/changes.ts)
  page_id       INTEGER NOT NULL,
  space_id      INTEGER NOT NULL,
  path          TEXT NOT NULL,                    -- a file event: <page path>/<file name>
  version       INTEGER,
  readers       TEXT,
  from_space_id INTEGER,
  from_path     TEXT,
  from_readers  TEXT,
  actor_id      TEXT NOT NULL,
  actor_kind    TEXT NOT NULL,
  PRIMARY KEY (txid, seq)
) WITHOUT ROWID;

-- Replication (docs/scale-out.md): a number that grows with each commit (src/store/txid.ts). Write
-- answers carry it as X-Service-Txid; a replica reads it from its copy to know how far it has
-- caught up (X-Service-Min-Txid). at_ms: the primary's clock at that commit (a replica's lagMs).
CREATE TABLE txid (
  id    INTEGER PRIMARY KEY CHECK (id = 1),
  n     INTEGER NOT NULL,
  at_ms INTEGER NOT NULL
);
INSERT INTO txid (id, n, at_ms) VALUES (1, 0, 0);

-- org_usage (what each organisation stores, SERVICE_ORG_QUOTA_BYTES) and the triggers that keep
-- it are created after this file, from src/store/org-usage.ts.

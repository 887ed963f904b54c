import path from 'node:path';
import { loadOpsConfig, type OpsConfig } from './ops-config.ts';
import { ConfigError, toInt } from './parse.ts';

// Settings: command-line flags > SERVICE_* environment variables > defaults, validated once.
export type Config = {
  dataDir: string;
  host: string;
  port: number;
  /** Public base URL of this server; links written with it are internal links. */
  baseUrl: string;
  bootstrapAdminKey: string | undefined;
  dbSynchronous: 'normal' | 'full';
  /** SQLite page cache per connection, in MiB. */
  dbCacheMb: number;
  limits: Limits;
  encryptionKey: string | undefined;
  webhooks: {
    allowHttp: boolean;
    allowPrivate: boolean;
    retryDelaysMs: number[];
    maxRetries: number;
    /** Per-attempt timeout; 10 s (contract). SERVICE_WEBHOOKS_TIMEOUT_MS exists so tests need not wait 10 s. */
    timeoutMs: number;
    /** Finished deliveries and log entries older than this are removed. */
    logRetentionDays: number;
  };
  spaceTemplates: SpaceTemplatesConfig;
  /** Logs, health, limits, shutdown and metrics (src/config/ops-config.ts). */
  ops: OpsConfig;
  sessions: SessionsConfig;
  /** Primary and read replicas (docs/scale-out.md). */
  replication: ReplicationConfig;
  /** The change feed (GET /changes, /changes/stream; docs/changes.md). */
  changes: ChangesConfig;
  /** Tests only (SERVICE_VALIDATE_RESPONSES=1): every answer is checked against its declared schema (src/http/response-check.ts). */
  validateResponses: boolean;
};

export type ReplicationConfig = {
  /** SERVICE_ROLE: a replica opens kspace.db read-only and forwards every write to the primary. */
  role: 'primary' | 'replica';
  /** SERVICE_PRIMARY_URL: where a replica forwards writes (required for a replica). */
  primaryUrl: string | undefined;
  /** SERVICE_REPLICA_WAIT_MS: how long a read with X-Service-Min-Txid waits before it is forwarded. */
  waitMs: number;
  /** SERVICE_CHECKPOINT_MODE: `litestream` = passive checkpoints only, no log restarts of kspace's own. */
  checkpointMode: 'auto' | 'litestream';
};

export type ChangesConfig = {
  /** SERVICE_CHANGES_RETENTION_DAYS: changes are kept this long (days; decimals allowed, for tests). */
  retentionDays: number;
  /** SERVICE_CHANGES_MAX_STREAMS: open change streams per principal (429 beyond). */
  maxStreams: number;
  /** SERVICE_CHANGES_HEARTBEAT_MS: a comment line on an idle stream this often. */
  heartbeatMs: number;
};

export type SessionsConfig = {
  /** A session unused this long ends (minutes; decimals allowed, for tests). */
  idleMinutes: number;
  /** A session ends this long after sign-in, used or not (days; decimals allowed). */
  maxDays: number;
  /** Sign-in failures: token buckets per name and per client address (burst, then so many per minute). */
  signInPerName: { burst: number; perMinute: number };
  signInPerAddress: { burst: number; perMinute: number };
};

export type SpaceTemplatesConfig = {
  /** A directory catalog (root.json + bundles) that replaces the built-in one. */
  path: string | undefined;
  /** Remote catalog: https URL of a root.json (opt-in). */
  url: string | undefined;
  /** PEM file of extra CA certificates trusted for the remote catalog (private CAs, tests). */
  caFile: string | undefined;
  refreshSeconds: number;
  /** Cap on each remote file (root.json, every bundle), after decompression. */
  maxBytes: number;
};

export type Limits = {
  bodyBytes: number;
  importBytes: number;
  /** Bytes of imports in flight across all principals (src/domain/bundles/import-gate.ts). */
  importBudgetBytes: number;
  pageBytes: number;
  /** The whole stored page: content + frontmatter JSON + metadata JSON. */
  storedPageBytes: number;
  frontmatterBytes: number;
  frontmatterKeys: number;
  metadataKeys: number;
  stringBytes: number;
  listItems: number;
  /** Scalar values and list items of one page's metadata together: its metadata index rows. */
  metadataItems: number;
  jsonDepth: number;
  /** One attachment's size (SERVICE_MAX_ATTACHMENT_BYTES). */
  attachmentBytes: number;
  /** Attachment bytes a space may hold, each attachment counted in full; 0 = no quota (SERVICE_SPACE_QUOTA_BYTES). */
  spaceQuotaBytes: number;
  /** Shared spaces one principal may create (org admins: no cap); 0 = no cap (SERVICE_MAX_SPACES_PER_PRINCIPAL). */
  maxSpacesPerPrincipal: number;
  /** Bytes an organisation's live pages and files may store; 0 = no quota (SERVICE_ORG_QUOTA_BYTES). */
  orgQuotaBytes: number;
  /** Distinct link targets a page's Markdown may hold (SERVICE_MAX_LINKS_PER_PAGE); twice as many link marks (domain/links/extract.ts). */
  linksPerPage: number;
};

export type Flags = { data?: string; host?: string; port?: string | number };
type Env = Record<string, string | undefined>;

export function loadConfig(flags: Flags = {}, env: Env = process.env): Config {
  const host = flags.host ?? env.SERVICE_HOST ?? '127.0.0.1';
  const port = toInt('port', flags.port ?? env.SERVICE_PORT ?? '8080', 0, 65535);
  const retryDelays = (env.SERVICE_WEBHOOKS_RETRY_DELAYS ?? '30,300,1800').split(',').map((s) => {
    const n = Number(s.trim());
    if (!Number.isFinite(n) || n < 0) throw new ConfigError(`SERVICE_WEBHOOKS_RETRY_DELAYS: '${s}' is not a number of seconds`);
    return Math.round(n * 1000);
  });
  const encryptionKey = env.SERVICE_SETTINGS_ENCRYPTION_KEY || undefined;
  if (encryptionKey !== undefined && encryptionKey.length < 32) {
    throw new ConfigError('SERVICE_SETTINGS_ENCRYPTION_KEY must be at least 32 characters');
  }
  const synchronous = (env.SERVICE_DB_SYNCHRONOUS ?? 'normal').toLowerCase();
  if (synchronous !== 'normal' && synchronous !== 'full') {
    throw new ConfigError("SERVICE_DB_SYNCHRONOUS must be 'normal' or 'full'");
  }
  return {
    dataDir: path.resolve(flags.data ?? env.SERVICE_DATA_DIR ?? './kspace-data'),
    host,
    port,
    baseUrl: (env.SERVICE_BASE_URL ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, ''),
    bootstrapAdminKey: env.SERVICE_BOOTSTRAP_ADMIN_KEY || undefined,
    dbSynchronous: synchronous,
    dbCacheMb: toInt('SERVICE_DB_CACHE_MB', env.SERVICE_DB_CACHE_MB ?? 8, 1, 65536),
    limits: {
      bodyBytes: toInt('SERVICE_MAX_BODY_BYTES', env.SERVICE_MAX_BODY_BYTES ?? 10 * 1024 * 1024, 1024),
      importBytes: toInt('SERVICE_MAX_IMPORT_BYTES', env.SERVICE_MAX_IMPORT_BYTES ?? 100 * 1024 * 1024, 1024),
      importBudgetBytes: toInt('SERVICE_IMPORT_BUDGET_BYTES', env.SERVICE_IMPORT_BUDGET_BYTES ?? 256 * 1024 * 1024, 1024),
      pageBytes: toInt('SERVICE_MAX_PAGE_BYTES', env.SERVICE_MAX_PAGE_BYTES ?? 2 * 1024 * 1024, 1),
      storedPageBytes: toInt('SERVICE_MAX_STORED_PAGE_BYTES', env.SERVICE_MAX_STORED_PAGE_BYTES ?? 4 * 1024 * 1024, 1),
      frontmatterBytes: toInt('SERVICE_MAX_FRONTMATTER_BYTES', env.SERVICE_MAX_FRONTMATTER_BYTES ?? 256 * 1024, 2),
      frontmatterKeys: toInt('SERVICE_MAX_FRONTMATTER_KEYS', env.SERVICE_MAX_FRONTMATTER_KEYS ?? 1000, 1),
      metadataKeys: toInt('SERVICE_MAX_METADATA_KEYS', env.SERVICE_MAX_METADATA_KEYS ?? 200, 1),
      stringBytes: toInt('SERVICE_MAX_STRING_BYTES', env.SERVICE_MAX_STRING_BYTES ?? 16 * 1024, 1),
      listItems: toInt('SERVICE_MAX_LIST_ITEMS', env.SERVICE_MAX_LIST_ITEMS ?? 1000, 1),
      metadataItems: toInt('SERVICE_MAX_METADATA_ITEMS', env.SERVICE_MAX_METADATA_ITEMS ?? 10_000, 1),
      jsonDepth: toInt('SERVICE_MAX_JSON_DEPTH', env.SERVICE_MAX_JSON_DEPTH ?? 32, 2, 1000),
      attachmentBytes: toInt('SERVICE_MAX_ATTACHMENT_BYTES', env.SERVICE_MAX_ATTACHMENT_BYTES ?? 25 * 1024 * 1024, 1, 1024 * 1024 * 1024),
      spaceQuotaBytes: toInt('SERVICE_SPACE_QUOTA_BYTES', env.SERVICE_SPACE_QUOTA_BYTES ?? 1024 * 1024 * 1024, 0),
      maxSpacesPerPrincipal: toInt('SERVICE_MAX_SPACES_PER_PRINCIPAL', env.SERVICE_MAX_SPACES_PER_PRINCIPAL ?? 100, 0),
      orgQuotaBytes: toInt('SERVICE_ORG_QUOTA_BYTES', env.SERVICE_ORG_QUOTA_BYTES ?? 10 * 1024 * 1024 * 1024, 0),
      linksPerPage: toInt('SERVICE_MAX_LINKS_PER_PAGE', env.SERVICE_MAX_LINKS_PER_PAGE ?? 5000, 1, 1_000_000),
    },
    encryptionKey,
    webhooks: {
      allowHttp: env.SERVICE_WEBHOOKS_ALLOW_HTTP === '1',
      allowPrivate: env.SERVICE_WEBHOOKS_ALLOW_PRIVATE_URLS === '1',
      retryDelaysMs: retryDelays,
      maxRetries: toInt('SERVICE_WEBHOOKS_MAX_RETRIES', env.SERVICE_WEBHOOKS_MAX_RETRIES ?? 3, 0, 100),
      timeoutMs: toInt('SERVICE_WEBHOOKS_TIMEOUT_MS', env.SERVICE_WEBHOOKS_TIMEOUT_MS ?? 10_000, 1, 600_000),
      logRetentionDays: toInt('SERVICE_WEBHOOKS_LOG_RETENTION_DAYS', env.SERVICE_WEBHOOKS_LOG_RETENTION_DAYS ?? 30, 1, 36_500),
    },
    spaceTemplates: {
      path: env.SERVICE_SPACE_TEMPLATES_PATH ? path.resolve(env.SERVICE_SPACE_TEMPLATES_PATH) : undefined,
      url: env.SERVICE_SPACE_TEMPLATES_URL || undefined,
      caFile: env.SERVICE_SPACE_TEMPLATES_CA || undefined,
      refreshSeconds: toInt('SERVICE_SPACE_TEMPLATES_REFRESH_SECONDS', env.SERVICE_SPACE_TEMPLATES_REFRESH_SECONDS ?? 3600, 1),
      maxBytes: toInt('SERVICE_SPACE_TEMPLATES_MAX_BYTES', env.SERVICE_SPACE_TEMPLATES_MAX_BYTES ?? 10 * 1024 * 1024, 1024),
    },
    ops: loadOpsConfig(env),
    sessions: {
      idleMinutes: toPositive('SERVICE_SESSION_IDLE_MINUTES', env.SERVICE_SESSION_IDLE_MINUTES ?? 720),
      maxDays: toPositive('SERVICE_SESSION_MAX_DAYS', env.SERVICE_SESSION_MAX_DAYS ?? 30),
      signInPerName: {
        burst: toInt('SERVICE_SIGNIN_NAME_BURST', env.SERVICE_SIGNIN_NAME_BURST ?? 5, 1),
        perMinute: toPositive('SERVICE_SIGNIN_NAME_PER_MINUTE', env.SERVICE_SIGNIN_NAME_PER_MINUTE ?? 1),
      },
      signInPerAddress: {
        burst: toInt('SERVICE_SIGNIN_ADDRESS_BURST', env.SERVICE_SIGNIN_ADDRESS_BURST ?? 20, 1),
        perMinute: toPositive('SERVICE_SIGNIN_ADDRESS_PER_MINUTE', env.SERVICE_SIGNIN_ADDRESS_PER_MINUTE ?? 10),
      },
    },
    replication: loadReplication(env),
    changes: {
      retentionDays: toPositive('SERVICE_CHANGES_RETENTION_DAYS', env.SERVICE_CHANGES_RETENTION_DAYS ?? 7),
      maxStreams: toInt('SERVICE_CHANGES_MAX_STREAMS', env.SERVICE_CHANGES_MAX_STREAMS ?? 10, 1, 100_000),
      heartbeatMs: toInt('SERVICE_CHANGES_HEARTBEAT_MS', env.SERVICE_CHANGES_HEARTBEAT_MS ?? 15_000, 10, 15_000),
    },
    validateResponses: env.SERVICE_VALIDATE_RESPONSES === '1',
  };
}

function loadReplication(env: Env): ReplicationConfig {
  const role = (env.SERVICE_ROLE || 'primary').toLowerCase();
  if (role !== 'primary' && role !== 'replica') throw new ConfigError("SERVICE_ROLE must be 'primary' or 'replica'");
  const mode = (env.SERVICE_CHECKPOINT_MODE || 'auto').toLowerCase();
  if (mode !== 'auto' && mode !== 'litestream') throw new ConfigError("SERVICE_CHECKPOINT_MODE must be 'auto' or 'litestream'");
  const primaryUrl = env.SERVICE_PRIMARY_URL?.replace(/\/+$/, '') || undefined;
  if (primaryUrl !== undefined) {
    let u: URL | undefined;
    try {
      u = new URL(primaryUrl);
    } catch {
      // reported below
    }
    if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || u.pathname !== '/' || u.search) {
      throw new ConfigError(`SERVICE_PRIMARY_URL: '${primaryUrl}' is not an http(s) base URL such as https://primary.example.org`);
    }
  }
  if (role === 'replica' && !primaryUrl)
    throw new ConfigError('SERVICE_ROLE=replica needs SERVICE_PRIMARY_URL (where writes are forwarded)');
  return {
    role,
    primaryUrl,
    checkpointMode: mode,
    waitMs: toInt('SERVICE_REPLICA_WAIT_MS', env.SERVICE_REPLICA_WAIT_MS ?? 2000, 0, 600_000),
  };
}

function toPositive(name: string, raw: string | number): number {
  const n = typeof raw === 'number' ? raw : Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new ConfigError(`${name}: '${raw}' is not a positive number`);
  return n;
}

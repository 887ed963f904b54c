import { indexBackfillJob } from './domain/indexes/backfill.ts';
import { changesRetentionJob } from './domain/changes.ts';
import { stopOffload } from './domain/offload.ts';
import { stopExportWorkers } from './domain/bundles/export-thread.ts';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeHandler } from './app.ts';
import { invalid } from './domain/errors.ts';
import { problemBody } from './http/respond.ts';
import { guardConnections } from './front/connections.ts';
import { createFront } from './front/front.ts';
import { attachMetrics } from './ops/metrics.ts';
import type { Config } from './config/config.ts';
import { bootstrap } from './domain/principals.ts';
import { ensureCursorKey } from './store/cursor-key.ts';
import { addMissingPersonalSpaces } from './domain/spaces.ts';
import { spaceTemplatesJob } from './domain/space-templates/job.ts';
import { createWebhookDispatcher } from './domain/webhooks/dispatcher.ts';
import { createLogger, createServices, type BackgroundJob, type Logger, type Services } from './services.ts';
import { startCheckpointer, type Checkpointer } from './store/helper/thread.ts';
import { closeMappedReaders, openDb, openReplicaDb } from './store/db/connection.ts';
import { createReplicaFullTextIndex } from './store/fts/replica-index.ts';
import { createReplicaHandler } from './front/replica.ts';
import { ensurePrivateDir, lockDataDir, looseModes } from './store/files.ts';

export type Running = {
  svc: Services;
  server: http.Server;
  url: string;
  close(): Promise<void>;
  /** The checkpoint and full-text helper thread, once started (`checkpointer: true`). */
  helper(): Checkpointer | null;
};

/** Background jobs (webhook dispatcher, catalog refresh, the wikilinks of older pages) register here; each gets start/stop. */
export const backgroundJobs: Array<(svc: Services) => BackgroundJob> = [
  spaceTemplatesJob,
  createWebhookDispatcher,
  indexBackfillJob,
  changesRetentionJob,
];

// The checkpointer helper starts this long after the server listens: its own start-up (Node and
// the bundle) would otherwise share the cores with the server's first answers and lengthen the
// cold start (docs/performance.md, Cold start). Until it runs, SQLite's own automatic
// checkpoints keep the WAL short and a search indexes what it needs itself (src/store/fts/sync.ts).
const HELPER_START_DELAY_MS = 250;

/**
 * A request whose URL cannot be built (a Host such as `x:99999` with a path srvx normalises, e.g.
 * one with `..`) throws inside h3 before any hook runs, and a throw in the 'request' event would
 * end the process. Found by the fuzzer (docs/security.md); answered 400 problem+json here.
 */
function guardNodeHandler(handler: http.RequestListener): http.RequestListener {
  return (req, res) => {
    try {
      return handler(req, res);
    } catch {
      const body = problemBody(
        invalid([{ key: 'Host', code: 'format', message: 'the Host header and the URL path do not form a valid URL' }]),
        req.url,
      );
      res.writeHead(400, { 'content-type': 'application/problem+json' }).end(body);
    }
  };
}

export type ServeOptions = { log?: Logger /** Checkpoint the WAL from a helper process (kspace serve). */; checkpointer?: boolean };

/** Opens the data dir, bootstraps it on first start, and serves HTTP until close(). */
export async function serve(config: Config, opts: ServeOptions | Logger = {}): Promise<Running> {
  const {
    log = createLogger(false, { format: config.ops.logFormat, level: config.ops.logLevel }),
    checkpointer: withCheckpointer = false,
  } = 'info' in opts ? { log: opts } : opts;
  const lock = lockDataDir(ensurePrivateDir(config.dataDir)); // a second server on this directory stops here
  // Checked before opening: SQLite gives a new -wal and -shm the database file's mode.
  for (const line of looseModes(config.dataDir)) log.warn(`other users can read the data: ${line}`);
  // A replica (docs/scale-out.md) opens the replicated kspace.db read-only and never writes it:
  // no migration, bootstrap, checkpoints, queue trimming, background jobs (webhook dispatcher,
  // catalog refresh, wikilink backfill) or helper; its full-text index is a file of its own.
  const replica = config.replication.role === 'replica';
  const litestream = config.replication.checkpointMode === 'litestream';
  let db: ReturnType<typeof openDb>;
  try {
    db = replica
      ? openReplicaDb(config.dataDir, { cacheMb: config.dbCacheMb })
      : openDb(config.dataDir, { synchronous: config.dbSynchronous, cacheMb: config.dbCacheMb });
  } catch (e) {
    lock.release();
    throw e;
  }
  // Litestream checkpoints: kspace's own automatic checkpoint is off, its helper runs PASSIVE passes only.
  if (!replica && litestream) db.pragma('wal_autocheckpoint = 0');
  const svc = createServices(db, config, log);
  if (replica) svc.fts = createReplicaFullTextIndex(db, config.dbCacheMb);
  const boot = replica ? null : bootstrap(svc);
  // Principals of an older kspace got their personal space on first use: they get it now, before
  // any request, so that no read has to write it (a new principal gets it with itself).
  if (!replica) addMissingPersonalSpaces(svc);
  if (!replica) ensureCursorKey(db); // the secret that seals list cursors, for replicas to copy
  if (boot?.generated) process.stderr.write(`admin API key: ${boot.adminKey}\n`);
  if (boot) {
    // A new organisation has no user yet (whether its admin key was generated or given): say how a
    // person gets into the web app. A log line, so that a JSON log stays JSON.
    log.info(
      `web app: create a user to sign in with: printf '%s\\n' 'a long password' | kspace admin create-principal --data ${config.dataDir} --name you --kind user --org-admin --password-stdin`,
    );
  }
  const app = createNodeHandler(svc, guardNodeHandler);
  const replicaFront = replica ? createReplicaHandler(svc, app) : null;
  const front = createFront(svc, replicaFront?.handler ?? app);
  if (config.ops.metrics) attachMetrics(svc, front);
  const { headersTimeoutMs, requestTimeoutMs } = config.ops;
  // headersTimeout and requestTimeout close a connection that sends its request too slowly (slowloris).
  const server = http.createServer(
    {
      keepAliveTimeout: 65_000,
      headersTimeout: headersTimeoutMs,
      requestTimeout: requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, headersTimeoutMs),
    },
    front.handler,
  );
  guardConnections(server, svc);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const url = `http://${host}:${addr.port}`;
  // Port 0 (tests): the default base URL named port 0; a configured SERVICE_BASE_URL stays.
  if (config.port === 0 && svc.config.baseUrl.endsWith(':0')) svc.config.baseUrl = url;
  svc.fts.check(); // the index is checked (and reset if it is not this database's) before the helper starts
  let checkpointer: Checkpointer | null = null;
  if (withCheckpointer && !replica) svc.fts.expectHelper(); // a search meanwhile leaves a large backlog to it
  const helperStart =
    withCheckpointer && !replica
      ? setTimeout(() => {
          checkpointer = startCheckpointer(db, db.name, {
            log: (m) => log.warn(m),
            holdWrites: () => svc.writes.hold(),
            fts: svc.fts,
            passiveOnly: litestream,
          });
        }, HELPER_START_DELAY_MS)
      : null;
  const jobs = replica ? [] : backgroundJobs.map((make) => make(svc));
  for (const job of jobs) job.start(svc);
  const role = replica ? ` as a replica of ${config.replication.primaryUrl}` : litestream ? ' (checkpoint mode litestream)' : '';
  log.info(`kspace listening on ${url} with data directory ${config.dataDir}${role}`);
  let closed = false;
  return {
    svc,
    server,
    url,
    helper: () => checkpointer,
    // Graceful: stop accepting, let in-flight requests finish (up to SERVICE_SHUTDOWN_TIMEOUT_MS),
    // commit what the group commit holds, stop the jobs (a webhook delivery cut off goes back to
    // pending, sent again at the next start), let the helper go, checkpoint the WAL, close.
    async close() {
      if (closed) return;
      closed = true;
      const t0 = performance.now();
      const took: Record<string, number> = {};
      const mark = (name: string) => (took[name] = Math.round(performance.now() - t0));
      front.drain();
      const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      const deadline = Date.now() + config.ops.shutdownTimeoutMs;
      while (front.inFlight() > 0 && Date.now() < deadline) {
        server.closeIdleConnections(); // keep-alive connections between two requests
        await new Promise((r) => setTimeout(r, 20));
      }
      if (front.inFlight() > 0)
        log.warn(`shutting down with ${front.inFlight()} requests unfinished after ${config.ops.shutdownTimeoutMs} ms`);
      server.closeAllConnections();
      await serverClosed;
      front.stop();
      mark('requests');
      await svc.writes.run(() => null).catch(() => {}); // runs after every batch queued before it
      mark('writes');
      for (const job of jobs) await job.stop();
      await stopOffload(); // the rendering and diff worker (src/domain/offload.ts)
      await stopExportWorkers(); // src/domain/bundles/export-thread.ts
      mark('jobs');
      if (helperStart) clearTimeout(helperStart);
      await checkpointer?.stop(); // its connections close first: the server's, the last, removes the WAL
      mark('helper');
      replicaFront?.stop();
      svc.fts.close();
      closeMappedReaders(db);
      try {
        // A replica never checkpoints (its connection is read-only); under Litestream, PASSIVE only.
        if (!replica) {
          if (litestream) db.pragma('wal_checkpoint(PASSIVE)');
          else shutdownCheckpoint(db, log);
        }
      } catch {
        // busy: closing the last connection checkpoints anyway
      }
      db.close();
      lock.release();
      mark('closed');
      log.info('kspace stopped', { ms: took });
    },
  };
}

// How long the shutdown checkpoint waits for other connections' read transactions to end before
// it leaves the WAL as it is. The server's own readers are closed by then; another one is
// Litestream (which holds one all the time: waiting the 5 s busy timeout for it only delayed
// every stop) or a `kspace backup` in progress.
const SHUTDOWN_CHECKPOINT_WAIT_MS = 200;

/**
 * SERVICE_CHECKPOINT_MODE=auto at shutdown: copies the WAL into the database and truncates it.
 * When another process holds a read transaction, the frames it does not need are still copied,
 * the -wal file stays, and a line says why (under Litestream, SERVICE_CHECKPOINT_MODE=litestream).
 */
function shutdownCheckpoint(db: ReturnType<typeof openDb>, log: Logger): void {
  db.pragma(`busy_timeout = ${SHUTDOWN_CHECKPOINT_WAIT_MS}`);
  const [r] = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number; log: number; checkpointed: number }>;
  if (r?.busy) {
    log.warn(
      `shutdown: another process reads kspace.db (Litestream? a backup?), so its WAL is not truncated and the -wal file stays; under Litestream set SERVICE_CHECKPOINT_MODE=litestream`,
      { walFrames: r.log, checkpointed: r.checkpointed },
    );
  }
}

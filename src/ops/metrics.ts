import type { Services } from '../services.ts';
import { deliveryCounts, fileSizes, outboxDepth } from '../store/ops-stats.ts';

// GET /metrics (SERVICE_METRICS=1): Prometheus text format, written here (a few lines; no
// client library). Per request: one map lookup and a bucket search. Everything else is read
// when scraped.

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128];

type Series = { route: string; status: number; count: number; sum: number; buckets: number[] };

/** What a finished request was, for the log and the metrics. */
export type Done = { route: string; status: number; ms: number; bytes: number };

type Metrics = { observe(d: Done): void; render(): string };

const registry = new WeakMap<Services, Metrics>();

/** The metrics of a server started with SERVICE_METRICS=1, if any. */
export function metricsOf(svc: Services): Metrics | undefined {
  return registry.get(svc);
}

export function attachMetrics(svc: Services, front: { onDone: Array<(d: Done) => void> }): Metrics {
  const series = new Map<string, Series>();
  const metrics: Metrics = {
    observe(d) {
      const key = `${d.status} ${d.route}`;
      let s = series.get(key);
      if (!s)
        series.set(key, (s = { route: d.route, status: d.status, count: 0, sum: 0, buckets: new Array(LATENCY_BUCKETS.length).fill(0) }));
      const seconds = d.ms / 1000;
      s.count++;
      s.sum += seconds;
      let i = 0;
      while (i < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[i]) i++;
      if (i < LATENCY_BUCKETS.length) s.buckets[i]++;
    },
    render: () => render(svc, series),
  };
  front.onDone.push(metrics.observe);
  registry.set(svc, metrics);
  return metrics;
}

function render(svc: Services, series: Map<string, Series>): string {
  const out: string[] = [];
  const head = (name: string, type: string, help: string) => out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
  head('kspace_http_requests_total', 'counter', 'HTTP requests by route pattern and status.');
  for (const s of series.values()) out.push(`kspace_http_requests_total{route="${esc(s.route)}",status="${s.status}"} ${s.count}`);
  head('kspace_http_request_duration_seconds', 'histogram', 'HTTP request duration by route pattern and status.');
  for (const s of series.values()) {
    const labels = `route="${esc(s.route)}",status="${s.status}"`;
    let acc = 0;
    LATENCY_BUCKETS.forEach((le, i) => {
      acc += s.buckets[i];
      out.push(`kspace_http_request_duration_seconds_bucket{${labels},le="${le}"} ${acc}`);
    });
    out.push(`kspace_http_request_duration_seconds_bucket{${labels},le="+Inf"} ${s.count}`);
    out.push(
      `kspace_http_request_duration_seconds_sum{${labels}} ${s.sum}`,
      `kspace_http_request_duration_seconds_count{${labels}} ${s.count}`,
    );
  }
  const { commits, writes, sizes } = svc.writes.stats;
  head('kspace_write_commits_total', 'counter', 'Group-commit transactions committed.');
  out.push(`kspace_write_commits_total ${commits}`);
  head('kspace_write_group_size', 'histogram', 'Writes per committed transaction.');
  let acc = 0;
  let b = 0;
  sizes.forEach((n, i) => {
    while (b < BATCH_BUCKETS.length && i + 1 > BATCH_BUCKETS[b]) {
      out.push(`kspace_write_group_size_bucket{le="${BATCH_BUCKETS[b]}"} ${acc}`);
      b++;
    }
    acc += n;
  });
  for (; b < BATCH_BUCKETS.length; b++) out.push(`kspace_write_group_size_bucket{le="${BATCH_BUCKETS[b]}"} ${acc}`);
  out.push(
    `kspace_write_group_size_bucket{le="+Inf"} ${commits}`,
    `kspace_write_group_size_sum ${writes}`,
    `kspace_write_group_size_count ${commits}`,
  );
  head('kspace_fulltext_backlog_pages', 'gauge', 'Page writes not yet in the full-text index.');
  out.push(`kspace_fulltext_backlog_pages ${svc.fts.backlog()}`);
  const outbox = outboxDepth(svc.db);
  head('kspace_outbox_depth', 'gauge', 'Events not yet turned into webhook deliveries.');
  out.push(`kspace_outbox_depth ${outbox.depth}`);
  head('kspace_outbox_oldest_age_seconds', 'gauge', 'Age of the oldest undispatched event (0 when none).');
  out.push(`kspace_outbox_oldest_age_seconds ${outbox.oldestAt ? Math.max(0, (Date.now() - Date.parse(outbox.oldestAt)) / 1000) : 0}`);
  head('kspace_webhook_deliveries', 'gauge', 'Webhook deliveries kept, by status (pending, delivered, failed, blocked).');
  const deliveries = deliveryCounts(svc.db);
  for (const status of ['pending', 'delivered', 'failed', 'blocked'])
    out.push(`kspace_webhook_deliveries{status="${status}"} ${deliveries[status] ?? 0}`);
  const files = fileSizes(svc.db);
  head('kspace_database_bytes', 'gauge', 'Size of kspace.db.');
  out.push(`kspace_database_bytes ${files.db}`);
  head('kspace_wal_bytes', 'gauge', 'Size of kspace.db-wal.');
  out.push(`kspace_wal_bytes ${files.wal}`);
  head('process_resident_memory_bytes', 'gauge', 'Resident set size.');
  out.push(`process_resident_memory_bytes ${process.memoryUsage.rss()}`);
  return out.join('\n') + '\n';
}

function esc(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

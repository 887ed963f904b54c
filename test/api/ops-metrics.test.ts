import { describe, expect, it } from 'vitest';
import { client, startServer } from '../support/server.ts';

/** Prometheus text format → { 'name{labels}': value }, checking every sample line's shape. */
function parse(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.trim().split('\n')) {
    if (line.startsWith('# HELP ') || line.startsWith('# TYPE ')) continue;
    const m = /^([a-z_]+(?:\{[^}]*\})?) (-?[0-9.e+]+|\+Inf)$/.exec(line);
    expect(m, line).not.toBeNull();
    out.set(m![1], Number(m![2]));
  }
  return out;
}

describe('GET /metrics', () => {
  it('is off by default (404)', async () => {
    const srv = await startServer();
    try {
      expect((await client(srv.url).get('/metrics')).status).toBe(404);
    } finally {
      await srv.close();
    }
  });

  it('with SERVICE_METRICS=1 and a token: requests by route and status, latency histograms, commits, index, outbox, sizes, RSS', async () => {
    const srv = await startServer({ SERVICE_METRICS: '1', SERVICE_METRICS_TOKEN: 'scrape-token-123' });
    try {
      await srv.admin.post('/spaces', { slug: 'm', name: 'M' });
      await Promise.all([1, 2, 3, 4, 5].map((i) => srv.admin.put(`/pages/m/p${i}`, { title: `P${i}`, content: 'x' })));
      await srv.admin.get('/pages/m/absent');
      expect((await client(srv.url).get('/metrics')).status).toBe(401);
      expect((await client(srv.url, 'wrong').get('/metrics')).status).toBe(401);
      const r = await client(srv.url, 'scrape-token-123').get('/metrics');
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      const m = parse(r.text);
      expect(m.get('kspace_http_requests_total{route="/pages/**",status="201"}')).toBe(5);
      expect(m.get('kspace_http_requests_total{route="/pages/**",status="404"}')).toBe(1);
      expect(m.get('kspace_http_requests_total{route="/spaces",status="201"}')).toBe(1);
      const labels = 'route="/pages/**",status="201"';
      expect(m.get(`kspace_http_request_duration_seconds_count{${labels}}`)).toBe(5);
      expect(m.get(`kspace_http_request_duration_seconds_bucket{${labels},le="+Inf"}`)).toBe(5);
      const buckets = [...m].filter(([k]) => k.startsWith(`kspace_http_request_duration_seconds_bucket{${labels}`)).map(([, v]) => v);
      expect(buckets).toEqual([...buckets].sort((a, b) => a - b)); // cumulative
      expect(m.get('kspace_write_commits_total')).toBeGreaterThanOrEqual(2);
      expect(m.get('kspace_write_group_size_sum')).toBeGreaterThanOrEqual(5);
      expect(m.get('kspace_write_group_size_bucket{le="+Inf"}')).toBe(m.get('kspace_write_commits_total'));
      expect(m.get('kspace_fulltext_backlog_pages')).toBe(5); // nothing searched: the test server indexes on search
      expect(m.get('kspace_outbox_depth')).toBeGreaterThanOrEqual(0);
      expect(m.has('kspace_outbox_oldest_age_seconds')).toBe(true);
      expect(m.get('kspace_webhook_deliveries{status="pending"}')).toBe(0);
      expect(m.get('kspace_database_bytes')).toBeGreaterThan(0);
      expect(m.get('kspace_wal_bytes')).toBeGreaterThan(0);
      expect(m.get('process_resident_memory_bytes')).toBeGreaterThan(10_000_000);
    } finally {
      await srv.close();
    }
  });
});

/**
 * @module Prometheus metrics of the HTTP app (prom-client), served at `GET /metrics` when the app
 * is given them (`createApp(engine, { metrics: createMetrics(engine) })`, `serve --metrics`):
 *
 * - `ventureql_http_requests_total{method,route,status}` and
 *   `ventureql_http_request_duration_seconds{method,route}` (histogram): `route` is the endpoint's
 *   pattern (`/companies/:id`), never the raw path, so ids and typos do not explode the label set;
 *   a request no endpoint answers is `route="(none)"`.
 * - `ventureql_quota_refusals_total`: requests answered 429 (quota used up).
 * - `ventureql_query_timeouts_total`: engine calls stopped at their time budget.
 * - `ventureql_cache_total{cache,result}`: totals (`cache="total"`) found cached (`hit`) or counted
 *   (`miss`); later pages (`cache="page_boundary"`) that started at a remembered boundary or not.
 * - `ventureql_pool_*`: worker threads (busy, queued) on SQLite, connections (open, idle, waiting)
 *   on PostgreSQL.
 * - the process's own metrics (`process_*`, `nodejs_*`: CPU, memory, event-loop lag).
 *
 * Each `createMetrics` has a registry of its own, so several apps in one process do not collide.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { Engine } from '../engine.js'

export interface HttpMetrics {
  readonly registry: Registry
  /** Records one answered request. */
  observe(entry: { readonly method: string; readonly route: string; readonly status: number; readonly seconds: number }): void
  /** The exposition: text and its content type. */
  render(): Promise<{ readonly contentType: string; readonly text: string }>
}

export interface MetricsOptions {
  /** Include prom-client's process and Node.js metrics. Default true. */
  readonly processMetrics?: boolean
}

/** Latency buckets in seconds: a key check takes ~0.1 ms, a first count on a million rows seconds. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

export function createMetrics(engine: Engine, options: MetricsOptions = {}): HttpMetrics {
  const registry = new Registry()
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry })
  const requests = new Counter({
    name: 'ventureql_http_requests_total', help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const, registers: [registry],
  })
  const duration = new Histogram({
    name: 'ventureql_http_request_duration_seconds', help: 'Time to answer an HTTP request, by method and route pattern.',
    labelNames: ['method', 'route'] as const, buckets: DURATION_BUCKETS, registers: [registry],
  })
  const refusals = new Counter({ name: 'ventureql_quota_refusals_total', help: 'Requests refused with 429 because the key\'s quota was used up.', registers: [registry] })
  // Engine counters are read at scrape time: the engine counts, the registry only reports.
  new Counter({
    name: 'ventureql_query_timeouts_total', help: 'Engine calls stopped at their time budget (answered query_timeout, 503).', registers: [registry],
    collect() {
      this.reset()
      this.inc(engine.stats().queryTimeouts)
    },
  })
  new Counter({
    name: 'ventureql_engine_calls_total',
    help: 'Calls the engine handed to its worker threads (SQLite) or connections (PostgreSQL). A key check that rides with a route\'s call (detail lookups by id or domain, their stories, people and tech stack, and search) counts with it; on other routes it is a call of its own.',
    registers: [registry],
    collect() {
      this.reset()
      this.inc(engine.stats().calls)
    },
  })
  new Counter({
    name: 'ventureql_cache_total',
    help: 'Cache use of query pages: cache="total" (the total count found cached: hit; counted: miss), cache="page_boundary" (a later page started at a remembered boundary: hit; needed a skip or a checkpoint pass: miss).',
    labelNames: ['cache', 'result'] as const, registers: [registry],
    collect() {
      const { cache } = engine.stats()
      this.reset()
      this.labels('total', 'hit').inc(cache.totalHits)
      this.labels('total', 'miss').inc(cache.totalMisses)
      this.labels('page_boundary', 'hit').inc(cache.boundaryHits)
      this.labels('page_boundary', 'miss').inc(cache.boundaryMisses)
    },
  })
  new Gauge({
    name: 'ventureql_pool_workers', help: 'SQLite: worker threads that run queries, by state (busy, idle); PostgreSQL: pool connections, by state (busy, idle).',
    labelNames: ['state'] as const, registers: [registry],
    collect() {
      const { pool } = engine.stats()
      this.reset()
      if (pool.kind === 'workers') {
        this.labels('busy').set(pool.busy)
        this.labels('idle').set(pool.workers - pool.busy)
      } else if (pool.kind === 'postgres') {
        this.labels('busy').set(pool.total - pool.idle)
        this.labels('idle').set(pool.idle)
      }
    },
  })
  new Gauge({
    name: 'ventureql_pool_waiting', help: 'Calls waiting for a free worker (SQLite) or connection (PostgreSQL).', registers: [registry],
    collect() {
      const { pool } = engine.stats()
      this.set(pool.kind === 'workers' ? pool.queued : pool.kind === 'postgres' ? pool.waiting : 0)
    },
  })
  new Counter({
    name: 'ventureql_pool_workers_replaced_total',
    help: 'SQLite: worker threads ended and started again (a worker that died, or stayed silent after its call was stopped at its budget or abandoned by its client).',
    registers: [registry],
    collect() {
      const { pool } = engine.stats()
      this.reset()
      if (pool.kind === 'workers') this.inc(pool.replaced)
    },
  })
  return Object.freeze<HttpMetrics>({
    registry,
    observe({ method, route, status, seconds }) {
      requests.labels(method, route, String(status)).inc()
      duration.labels(method, route).observe(seconds)
      if (status === 429) refusals.inc()
    },
    async render() {
      return { contentType: registry.contentType, text: await registry.metrics() }
    },
  })
}

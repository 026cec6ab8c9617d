/**
 * @module The operations endpoints, answered before the key check and never counted against a
 * quota: `GET /healthz` (the process answers), `GET /readyz` (the database answers a statement,
 * its migrations are this code's, and on SQLite its state file is still the one open: else 503, so
 * a load balancer sends traffic elsewhere) and, when
 * the app has metrics, `GET /metrics` (Prometheus text format). None of them is in the OpenAPI
 * document: they are for the platform that runs the server, not for API clients.
 *
 * `/metrics` needs no key, like `/healthz`: Prometheus scrapers rarely carry credentials, and the
 * metrics hold no data of the API (counts by route pattern and status, latencies, pool state). It
 * exists only when the operator asks for it (`serve --metrics`); keep it off a public interface
 * (bind a private address, or let the proxy refuse the path) if its numbers are sensitive.
 */
import type { AppDeps, HttpApp } from './context.js'
import { problemResponse } from './problem.js'

/** Budget of the readiness check: a probe that waits longer has failed anyway. */
const READY_TIMEOUT_MS = 2_000

export const OPS_PATHS: readonly string[] = Object.freeze(['/healthz', '/readyz', '/metrics'])

const json = (status: number, body: unknown): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' } })

const notReady = (detail: string, extra: Record<string, unknown> = {}): Response =>
  problemResponse(503, { detail, extra: { status: 'not ready', ...extra }, headers: { 'Retry-After': '5', 'cache-control': 'no-store' } })

export function registerOps(app: HttpApp, deps: AppDeps): void {
  app.get('/healthz', () => json(200, { status: 'ok' }))

  app.get('/readyz', async () => {
    // SQLite: the state file deleted or replaced while serving (a stat of its path, store/open.ts).
    // The answer does not name the path (the probe needs no key); the server's log does.
    const database = deps.engine.database
    if (database.dialect === 'sqlite' && database.stateFile?.problem() !== undefined) {
      return notReady('The state file (API keys, quota counts, stored queries) was deleted or replaced while the server runs: writes since then are lost at the next start. Stop the server and restore the file from a backup (see the server log).', { state_file: 'lost' })
    }
    let status
    try {
      status = await deps.engine.status({ timeoutMs: READY_TIMEOUT_MS })
    } catch (error) {
      // The reason names the failure's kind, never a connection string or a stack.
      const kind = error instanceof Error ? error.name : 'Error'
      return notReady(`The database did not answer (${kind}).`)
    }
    if (status.pendingMigrations.length > 0) {
      return notReady(`The database lacks ${status.pendingMigrations.length} migration(s) of this release; restart the server or run it once against the database to apply them.`, { pending_migrations: status.pendingMigrations })
    }
    if (status.unknownMigrations.length > 0) {
      return notReady('The database was migrated by a newer release than this server; upgrade the server.', { unknown_migrations: status.unknownMigrations })
    }
    return json(200, { status: 'ready', data_version: status.dataVersion })
  })

  const metrics = deps.options.metrics
  if (metrics) {
    app.get('/metrics', async () => {
      const { contentType, text } = await metrics.render()
      return new Response(text, { status: 200, headers: { 'content-type': contentType, 'cache-control': 'no-store' } })
    })
  }
}

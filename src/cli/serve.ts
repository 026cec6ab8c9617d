/**
 * @module `ventureql serve`: the reference HTTP server over HTTPS. On a fresh clone, with no
 * arguments, it generates the demo database, creates a full and a trial API key, creates a
 * self-signed development certificate, and prints the base URL and both keys:
 *
 *   ventureql: serving https://127.0.0.1:8443 (5000 companies, .../.ventureql/ventureql.db)
 *   full key: vql_...
 *   trial key: vql_...
 *
 * The `https://`, `full key:` and `trial key:` lines are stable so scripts can read them. Keys are
 * printed once, when created (only their hashes are stored); later runs say how many are active.
 */
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { InvalidArgumentError, Option, type Command } from 'commander'
import { createEngine, type Engine } from '../engine.js'
import type { SqliteVentureDb, VentureDb } from '../store/open.js'
import { defaultPoolSize } from '../execute/pool/pool.js'
import { DEFAULT_MAX_CONNECTIONS } from '../store/open-postgres.js'
import { describeTarget, isPostgresUrl, openTarget } from '../store/open-target.js'
import { randomUUID } from 'node:crypto'
import type { DestinationStream } from 'pino'
import { createApp } from '../http/app.js'
import { createMetrics } from '../http/metrics.js'
import { loggablePath } from '../http/observe.js'
import { createRequestLog, resolveLogFormat, type LogFormat } from '../http/request-log.js'
import { DEFAULT_SHUTDOWN_TIMEOUT_MS, startNodeServer, type CloseSummary, type RunningServer } from '../http/node-server.js'
import { loadOrCreateDevCertificate, readTlsPair, type TlsMaterial } from '../http/tls.js'
import { createApiKey, listApiKeys, type NewKey } from '../store/api-keys.js'
import { generatedAsOf, generateInto } from '../store/generate/build.js'
import { todayUtc } from '../store/generate/generator.js'
import { openDatabase } from '../store/open.js'
import { DEFAULT_MEMORY_BUDGET_BYTES, MIN_MEMORY_BUDGET_BYTES } from '../store/memory-budget.js'
import { similarIndexCoverage, type SimilarIndexCoverage } from '../records/similar-index.js'
import { databaseFiles, stateFileOf } from '../store/state-file.js'
import { DEFAULT_DEMO_COMPANIES } from './generate.js'
import { tuneHeapForServing } from './heap.js'
import { DEFAULT_QUOTAS } from './keys.js'

export const DEFAULT_PORT = 8443
/** This machine only: the demo keys are printed on the terminal; bind 0.0.0.0 on purpose with --host. */
export const DEFAULT_HOST = '127.0.0.1'
export const DEFAULT_DATA_DIR = './.ventureql'
export const DATABASE_FILE = 'ventureql.db'
/**
 * The time budget of a request's queries: long enough for any first count on a million companies
 * that the cost limits admit, short enough that a client is answered (503, Retry-After) before
 * proxies and clients give up on it.
 */
export const DEFAULT_QUERY_TIMEOUT_MS = 10_000
/** PostgreSQL pool size of `serve` unless `--connections` says otherwise. */
export const DEFAULT_PG_CONNECTIONS = DEFAULT_MAX_CONNECTIONS
const MB = 1024 * 1024
/** `--memory-budget`'s default, in megabytes (store/memory-budget.ts). */
export const DEFAULT_MEMORY_BUDGET_MB = DEFAULT_MEMORY_BUDGET_BYTES / MB

/** The keys a first run creates: enough for interactive use and scripts, and a trial key to see its limits. */
export const FIRST_RUN_KEYS: readonly (NewKey & { readonly name: 'full' | 'trial' })[] = Object.freeze([
  { name: 'full', plan: 'full', quota: DEFAULT_QUOTAS.full, period: 'day', label: 'created by ventureql serve' },
  { name: 'trial', plan: 'trial', quota: DEFAULT_QUOTAS.trial, period: 'day', label: 'created by ventureql serve' },
])

export interface ServeOptions {
  readonly port?: number
  readonly host?: string
  readonly dataDir?: string
  /** A database file to serve instead of `<dataDir>/ventureql.db`; it must exist. */
  readonly database?: string
  readonly tlsCert?: string
  readonly tlsKey?: string
  /** Plain HTTP, for running behind a TLS-terminating proxy. */
  readonly http?: boolean
  /** Size of the demo database when it has to be generated. */
  readonly companies?: number
  /** The public base URL when it differs from the address clients reach (behind a proxy). */
  readonly baseUrl?: string
  /**
   * One log line per request on stderr (request id, method, route, path, status, duration; never
   * the query string, which may hold the key): JSON, or a human-readable line on a terminal.
   */
  readonly accessLog?: boolean
  /** The request log's form: `auto` (default: pretty on a terminal, JSON otherwise), `json` or `pretty`. */
  readonly logFormat?: 'auto' | LogFormat
  /** Where request log lines go instead of stderr (tests). */
  readonly logDestination?: DestinationStream
  /** Serve Prometheus metrics at GET /metrics (no key needed; see http/ops.ts). */
  readonly metrics?: boolean
  /** Origins allowed to call from browsers (CORS): exact origins or `*`. Default none. */
  readonly cors?: readonly string[]
  /** Milliseconds a request's query may run before it is stopped and answered 503 (default 10,000). */
  readonly queryTimeout?: number
  /**
   * SQLite: worker threads that run queries (default: one per core; one more is kept for key checks
   * and lookups). PostgreSQL: how many calls other than key checks and lookups run at once (default:
   * the cores of this machine; raise it when the database has more cores than this server).
   */
  readonly workers?: number
  /** With a postgres:// `database`: the schema holding the tables. */
  readonly schema?: string
  /**
   * With a postgres:// `database`: connections in the pool (default 10). Across N servers the
   * database sees up to N times this.
   */
  readonly connections?: number
  /**
   * Per-key limits of heavy calls (grammar-docs/guides/fairness.md): calls running at once
   * (default: half the workers, at least 1), calls waiting beyond those (default 64; more are
   * answered 429), worker milliseconds per minute (default 30,000; 0: none).
   */
  readonly tenantConcurrency?: number
  readonly tenantBacklog?: number
  readonly tenantAllowance?: number
  /**
   * SQLite: megabytes of memory the engine may hold (default 1024): half is shared out as each
   * connection's mapped size of the data file, the rest left for heaps and caches
   * (`EngineOptions.memoryBudget`; grammar-docs/guides/serving.md, "Memory").
   */
  readonly memoryBudget?: number
  /** How long `close()` may take (milliseconds); see `RunningServer.close`. Default 10,000. */
  readonly shutdownTimeoutMs?: number
  /**
   * SQLite: start with an empty state file on purpose when the database's is missing, empty,
   * another database's or corrupt (refused otherwise; store/state-file.ts). Every API key, quota
   * count and stored query of the lost file is then gone.
   */
  readonly newState?: boolean
  /** SQLite: milliseconds between checks that the state file is still the one open (default 5,000). */
  readonly stateCheckMs?: number
  /** Where start-up lines go (default stdout) and progress and warnings (default stderr). */
  readonly out?: (line: string) => void
  readonly err?: (line: string) => void
}

export interface ServeHandle {
  readonly url: string
  readonly server: RunningServer
  readonly engine: Engine
  readonly databaseFile: string
  /** The certificate served; absent with --http. */
  readonly tls: TlsMaterial | undefined
  /** The keys this start created (first run only). */
  readonly createdKeys: { readonly full: string; readonly trial: string } | undefined
  /**
   * Stops gracefully within the shutdown timeout (`RunningServer.close`: every request received is
   * answered, idle connections are closed), then closes the database. Later calls return the same promise.
   */
  close(): Promise<CloseSummary>
}

/** A problem with the options or the environment, said in one line; the CLI exits 1 with it. */
export class ServeError extends Error {
  override readonly name = 'ServeError'
}

export async function startServe(options: ServeOptions = {}): Promise<ServeHandle> {
  const out = options.out ?? ((line: string) => process.stdout.write(line + '\n'))
  const err = options.err ?? ((line: string) => process.stderr.write(line + '\n'))
  const dataDir = resolve(options.dataDir ?? DEFAULT_DATA_DIR)
  const port = options.port ?? DEFAULT_PORT
  const host = options.host ?? DEFAULT_HOST
  if (!Number.isSafeInteger(port) || port < 0 || port > 65535) throw new ServeError(`--port must be a whole number from 0 to 65535, got ${String(port)}`)
  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS
  if (!Number.isSafeInteger(shutdownTimeoutMs) || shutdownTimeoutMs < 0) throw new ServeError(`--shutdown-timeout must be a whole number of milliseconds >= 0, got ${String(shutdownTimeoutMs)}`)
  if ((options.tlsCert === undefined) !== (options.tlsKey === undefined)) {
    throw new ServeError('--tls-cert and --tls-key go together: give both (a certificate and its private key) or neither (a development certificate is created)')
  }
  if (options.http && options.tlsCert !== undefined) throw new ServeError('--http serves plain HTTP; it cannot be combined with --tls-cert/--tls-key')
  // A path is allowed: a proxy may mount the API under a prefix (https://example.com/api).
  for (const origin of options.cors ?? []) {
    if (origin !== '*' && !/^https?:\/\/[^/?#\s]+$/.test(origin)) {
      throw new ServeError(`--cors takes origins such as https://app.example.com (scheme and host, no path) or *, separated by commas; got ${JSON.stringify(origin)}`)
    }
  }
  if (options.logFormat !== undefined && !['auto', 'json', 'pretty'].includes(options.logFormat)) {
    throw new ServeError(`--log-format is auto, json or pretty, got ${JSON.stringify(options.logFormat)}`)
  }
  if (options.baseUrl !== undefined && !/^https?:\/\/[^/?#\s]+(\/[^?#\s]*)?$/.test(options.baseUrl)) {
    throw new ServeError(`--base-url must be an absolute http(s) URL such as https://api.example.com, got ${JSON.stringify(options.baseUrl)}`)
  }

  // TLS first: a bad certificate path should fail before minutes of demo-data generation.
  const tls = options.http ? undefined
    : options.tlsCert !== undefined ? readTlsPair(options.tlsCert, options.tlsKey!)
      : await loadOrCreateDevCertificate(dataDir)

  const queryTimeoutMs = options.queryTimeout ?? DEFAULT_QUERY_TIMEOUT_MS
  if (!Number.isSafeInteger(queryTimeoutMs) || queryTimeoutMs < 0) throw new ServeError(`--query-timeout must be a whole number of milliseconds (0: no limit), got ${String(queryTimeoutMs)}`)
  if (options.workers !== undefined && (!Number.isSafeInteger(options.workers) || options.workers < 1)) {
    throw new ServeError(`--workers must be a whole number of threads, at least 1, got ${String(options.workers)}`)
  }
  if (options.connections !== undefined && (!Number.isSafeInteger(options.connections) || options.connections < 1)) {
    throw new ServeError(`--connections must be a whole number of connections, at least 1, got ${String(options.connections)}`)
  }
  const postgres = options.database !== undefined && isPostgresUrl(options.database)
  const fairness = {
    ...(options.tenantConcurrency !== undefined ? { tenantConcurrency: options.tenantConcurrency } : {}),
    ...(options.tenantBacklog !== undefined ? { tenantBacklog: options.tenantBacklog } : {}),
    ...(options.tenantAllowance !== undefined ? { tenantAllowanceMs: options.tenantAllowance } : {}),
  }
  if (options.schema !== undefined && !postgres) throw new ServeError('--schema applies to a PostgreSQL database: give --database postgres://...')
  if (options.newState && postgres) throw new ServeError('--new-state applies to a SQLite database (its -state file); on PostgreSQL keys and quotas live in the database itself')
  if (options.connections !== undefined && !postgres) throw new ServeError('--connections applies to a PostgreSQL database (the size of its connection pool); a SQLite file runs queries in --workers threads')

  let databaseFile: string
  let engine: Engine
  /** A database the engine does not own (PostgreSQL), closed after it. */
  let pgdb: VentureDb | undefined
  if (postgres) {
    databaseFile = describeTarget(options.database!, options.schema)
    try {
      // The server's statement_timeout backs the budget up; the engine cancels a call's statements at its deadline first.
      pgdb = await openTarget(options.database!, {
        schema: options.schema,
        ...(queryTimeoutMs > 0 ? { statementTimeoutMs: queryTimeoutMs + 1000 } : {}),
        ...(options.connections !== undefined ? { maxConnections: options.connections } : {}),
      })
    } catch (error) {
      throw new ServeError(error instanceof Error ? error.message : String(error))
    }
    engine = createEngine({ database: pgdb, timeoutMs: queryTimeoutMs, fairness, ...(options.workers !== undefined ? { workers: options.workers } : {}) })
  } else {
    databaseFile = options.database !== undefined ? resolve(options.database) : join(dataDir, DATABASE_FILE)
    if (options.database !== undefined && !existsSync(databaseFile)) {
      throw new ServeError(`the database ${databaseFile} does not exist; create one with \`ventureql generate --out FILE\` or \`ventureql import\`, or leave out --database to use the demo database`)
    }
    if (!existsSync(databaseFile)) await generateDemo(databaseFile, options.companies ?? DEFAULT_DEMO_COMPANIES, err)
    engine = createEngine({
      database: databaseFile, timeoutMs: queryTimeoutMs, newState: options.newState ?? false, fairness,
      memoryBudget: (options.memoryBudget ?? DEFAULT_MEMORY_BUDGET_MB) * MB,
      ...(options.workers !== undefined ? { workers: options.workers } : {}),
    })
    const recovered = (engine.database as SqliteVentureDb).stateFile?.recovered
    if (recovered !== undefined) err(`ventureql: ${recovered}`)
  }
  let databaseClosed: Promise<void> | undefined
  const closeDatabase = (graceMs?: number) => (databaseClosed ??= (async () => {
    await engine.close(graceMs === undefined ? undefined : { graceMs })
    await pgdb?.close()
  })())
  let server: RunningServer
  const requestLog = options.accessLog
    ? createRequestLog({ format: resolveLogFormat(options.logFormat ?? 'auto'), ...(options.logDestination ? { destination: options.logDestination } : {}) })
    : undefined
  let similarCoverage: SimilarIndexCoverage
  try {
    // Before listening: on SQLite the check runs on this thread's own connection and, for a complete
    // index, reads every company's row (0.5-1.6 s at 1,000,000 companies); after listening it
    // would hold up the first requests for that long.
    similarCoverage = await similarIndexCoverage(engine.database)
    // A request's time limit counts from its arrival, and starting the worker threads is no part
    // of it: they start (from createEngine, beside the check above) before the port opens.
    await engine.ready()
    const app = createApp(engine, {
      ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
      ...(requestLog ? { onRequest: requestLog.log } : {}),
      ...(options.metrics ? { metrics: createMetrics(engine) } : {}),
      ...(options.cors && options.cors.length > 0 ? { corsOrigins: options.cors } : {}),
    })
    server = await startNodeServer({
      fetch: app.fetch,
      port, host,
      ...(tls ? { tls: { cert: tls.cert, key: tls.key } } : {}),
      maxBodyBytes: engine.limits.maxBodyBytes,
      // This process is the server's own: the adapter's lightweight Request and Response are safe here.
      overrideGlobalObjects: true,
      // The app logs what it answers; the bridge reports what it answers itself (413 before the body, 503 while closing, CONNECT).
      ...(requestLog ? {
        onAccess: (e) => {
          if (e.source === 'server') requestLog.log({ requestId: randomUUID(), method: e.method, route: '(server)', path: loggablePath(e.path), status: e.status, ms: e.ms })
        },
      } : {}),
    })
  } catch (error) {
    await closeDatabase()
    throw error instanceof Error ? new ServeError(error.message) : error
  }

  // Keys are created only once the server is up: a key printed by a start that then failed to
  // listen would be lost (its text is never stored).
  const active = (await listApiKeys(engine.database)).filter((k) => k.revokedAt === null)
  const createdKeys = active.length === 0 ? await createFirstRunKeys(engine) : undefined

  const companies = await engine.count({ dataset: 'companies', filter: {} })
  out(`ventureql: serving ${server.url} (${companies.ok ? `${companies.value} companies, ` : ''}${databaseFile})`)
  const asOf = await generatedAsOf(engine.database)
  if (asOf !== undefined) out(generatedDataNote(asOf, todayUtc(), options.database === undefined ? databaseFile : undefined))
  // The URL without its password, as in every message (describeTarget).
  const databaseArg = postgres ? `${describeTarget(options.database!)}${options.schema !== undefined ? ` --schema ${options.schema}` : ''}` : databaseFile
  const similar = similarIndexNote(similarCoverage, companies.ok ? companies.value : 0, databaseArg)
  if (similar !== undefined) out(similar)
  const { workers, interruptible, timeoutMs } = engine.execution
  const limit = timeoutMs > 0 ? `stopped after ${timeoutMs} ms (--query-timeout)` : 'no time limit'
  if (postgres) {
    out(`queries: a pool of ${options.connections ?? DEFAULT_PG_CONNECTIONS} PostgreSQL connections (--connections), `
      + `at most ${options.workers ?? defaultPoolSize()} heavy calls at once (--workers), ${limit}`)
  }
  else {
    const mapped = engine.execution.memory
    out(`queries: ${workers} worker threads (one kept for key checks and lookups), ${limit}`
      + (mapped ? `; memory budget ${Math.round(mapped.budgetBytes / MB)} MB (--memory-budget), ${Math.round(mapped.mmapBytesPerConnection / MB)} MB of the data file mapped per connection` : '')
      + `${timeoutMs > 0 && !interruptible ? '; the interrupt extension was not built (no C compiler at install), so a worker over budget is ended instead' : ''}`)
  }
  if (tls?.selfSigned) {
    out(`certificate: ${tls.certPath} (self-signed for localhost, 127.0.0.1 and ::1; ${tls.created ? 'created now' : 'reused'}, valid until ${tls.validTo.toISOString().slice(0, 10)})`)
    out(`  trust it: curl --cacert ${tls.certPath} '${server.url}/ratelimit/usage?key=KEY'`)
    out(`            NODE_EXTRA_CA_CERTS=${tls.certPath} node your-client.js`)
  } else if (tls) {
    out(`certificate: ${tls.certPath} (valid until ${tls.validTo.toISOString().slice(0, 10)})`)
  } else {
    out('plain HTTP: run this behind a proxy that terminates TLS; clients must not send keys over an unencrypted network')
  }
  if (createdKeys) {
    out(`full key: ${createdKeys.full}`)
    out(`trial key: ${createdKeys.trial}`)
    out(`  (${FIRST_RUN_KEYS.map((k) => `${k.name}: ${k.quota} requests per ${k.period}`).join('; ')}. Keys are shown once: only their hashes are stored.)`)
  } else {
    // The same database, spelled as the keys command takes it (a URL without its password).
    const keysTarget = options.database === undefined ? ''
      : postgres ? ` --database ${describeTarget(options.database)}${options.schema !== undefined ? ` --schema ${options.schema}` : ''}` : ` --database ${databaseFile}`
    out(`api keys: ${active.length} active (not shown: only their hashes are stored); create one with \`ventureql keys create${keysTarget} --plan full --quota 100000\``)
  }
  out(`try: curl${tls?.selfSigned ? ` --cacert ${tls.certPath}` : ''} '${server.url}/companies?stage=a|b&key=KEY'   (API description: ${server.url}/openapi.json)`)
  out(`API reference: ${server.url}/docs (in a browser; Authorize with a key, then "Try it out")`)
  out(`operations: ${server.url}/healthz, ${server.url}/readyz${options.metrics ? `, ${server.url}/metrics (Prometheus, no key)` : ''}`
    + `${options.cors && options.cors.length > 0 ? `; CORS for ${options.cors.join(', ')}` : ''}${requestLog ? '; request log on stderr' : ''}`)

  const stopWatching = watchStateFile(engine.database, options.stateCheckMs ?? DEFAULT_STATE_CHECK_MS, (problem, path) => {
    if (requestLog) requestLog.logger.error({ state_file: path }, problem)
    else err(`ventureql: ${problem}`)
  })

  let closing: Promise<CloseSummary> | undefined
  return Object.freeze({
    url: server.url, server, engine, databaseFile, tls, createdKeys,
    // The database closes after the server has answered every request (they need it), or once the
    // server has answered 503 what still runs: the statements behind those requests are
    // interrupted then. The server's part ends STOP_RESERVE_MS early, so that stopping the
    // statements and ending the worker threads fit in the timeout too.
    close: () => (closing ??= server.close(shutdownTimeoutMs - stopReserveMs(shutdownTimeoutMs), { onRefused: () => { closeDatabase(0).catch(() => {}) } }).then(async (summary) => {
      stopWatching()
      await closeDatabase(0)
      return summary
    })),
  })
}

/** How often `serve` checks that its state file is still the one it has open. */
export const DEFAULT_STATE_CHECK_MS = 5_000

/**
 * Reports (once) a state file deleted or replaced while serving: SQLite keeps using the file it
 * opened and says nothing, and `/readyz` answers 503 only when probed. The check is one `stat`
 * (SqliteStateFile.problem), so a few seconds apart costs nothing. Returns the function that stops it.
 */
function watchStateFile(vdb: VentureDb, everyMs: number, report: (problem: string, path: string) => void): () => void {
  const stateFile = vdb.dialect === 'sqlite' ? vdb.stateFile : undefined
  if (stateFile === undefined) return () => {}
  const timer = setInterval(() => {
    const problem = stateFile.problem()
    if (problem === undefined) return
    report(problem, stateFile.path)
    clearInterval(timer)
  }, everyMs)
  timer.unref()
  return () => clearInterval(timer)
}

/**
 * The end of the shutdown timeout kept for stopping the statements still running and ending the
 * worker threads: about half a second with 3 workers on 2 busy cores at 100,000 companies
 * (`npx tsx scripts/shutdown-deadline.ts`; about a second from the TypeScript sources, whose threads
 * each run tsx's loader), at most half the timeout.
 */
export const STOP_RESERVE_MS = 1_000
export const stopReserveMs = (timeoutMs: number): number => Math.min(STOP_RESERVE_MS, Math.floor(timeoutMs / 2))

/**
 * What the startup output says about a generated database: the day its dates are relative to and,
 * once it is older than a few weeks, that date phrases ("raised in past 3 months") count back from
 * today and so match less and less of it. `demoFile`: the demo database, which a restart
 * regenerates when it is deleted.
 */
export function generatedDataNote(asOf: string, today: string, demoFile: string | undefined): string {
  const days = Math.round((Date.parse(`${today}T00:00:00Z`) - Date.parse(`${asOf}T00:00:00Z`)) / 86_400_000)
  if (days <= STALE_DEMO_DAYS) return `data: generated, dated as of ${asOf}${days === 0 ? ' (today)' : ''}`
  const redo = demoFile !== undefined ? `delete ${demoFile} for a new demo database (new keys too)` : 'regenerate it with `ventureql generate --out FILE`'
  return `data: generated, dated as of ${asOf}, ${days} days ago: date phrases such as "raised in past 3 months" count back from today and match less of it; ${redo}`
}

/** From how many companies the startup output suggests building the similarity index (below, a search takes well under a millisecond). */
export const SUGGEST_SIMILAR_INDEX_FROM = 100_000

/**
 * What the startup output says about similar companies: read from the similarity index when it is
 * built for the current data, said to be searched (with the command that builds the index) when it
 * is not and the dataset is large enough for that to matter; nothing for a small dataset without it.
 */
export function similarIndexNote(coverage: SimilarIndexCoverage, companies: number, database: string): string | undefined {
  const build = `ventureql similar-index --database ${database}`
  if (coverage === 'current') return 'similar companies: from the similarity index (built for this data version)'
  if (coverage === 'partial') return `similar companies: the similarity index is incomplete for this data version (a build under way or stopped); the companies it lacks are searched; \`${build}\` completes it`
  if (companies < SUGGEST_SIMILAR_INDEX_FROM) return undefined
  return `similar companies: searched on each request (milliseconds a call at this size); \`${build}\` computes them ahead`
}

/** Age (days) past which the startup output says generated data is getting old. */
const STALE_DEMO_DAYS = 30

/** Generates the demo dataset beside its final name and renames it, so an interrupted run leaves no half database. */
async function generateDemo(file: string, companies: number, err: (line: string) => void): Promise<void> {
  if (!Number.isSafeInteger(companies) || companies < 1) throw new ServeError(`--companies must be a positive whole number, got ${String(companies)}`)
  mkdirSync(resolve(file, '..'), { recursive: true })
  const partial = `${file}.generating`
  for (const f of databaseFiles(partial)) rmSync(f, { force: true })
  const started = Date.now()
  err(`ventureql: no database at ${file}; generating the demo dataset (${companies} companies) ...`)
  const vdb = openDatabase(partial)
  try {
    generateInto(vdb, { companies, seed: 1 })
  } finally {
    // Closing checkpoints the WAL into the file, so the renamed file is complete on its own.
    await vdb.close()
  }
  // Its state file too (closed, so checkpointed): the keys created next belong with it.
  for (const f of databaseFiles(file)) rmSync(f, { force: true })
  renameSync(partial, file)
  if (existsSync(stateFileOf(partial))) renameSync(stateFileOf(partial), stateFileOf(file))
  err(`ventureql: generated in ${((Date.now() - started) / 1000).toFixed(1)} s`)
}

async function createFirstRunKeys(engine: Engine): Promise<{ full: string; trial: string }> {
  const keys: Record<string, string> = {}
  for (const spec of FIRST_RUN_KEYS) {
    const made = await createApiKey(engine.database, spec)
    if (!made.ok) throw new ServeError(`could not create the ${spec.name} key: ${made.issues.map((i) => i.message).join('; ')}`)
    keys[spec.name] = made.value.key
  }
  return { full: keys.full!, trial: keys.trial! }
}

function port(value: string): number {
  const n = Number(value)
  if (!/^[0-9]{1,5}$/.test(value) || n > 65535) throw new InvalidArgumentError(`--port must be a whole number from 0 to 65535, got ${JSON.stringify(value)}`)
  return n
}

/** A flag's parser: digits only, at least `min`; `unit` names what the number counts. */
function wholeNumber(flag: string, min: number, unit: string): (value: string) => number {
  return (value) => {
    const n = Number(value)
    if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(n) || n < min) {
      throw new InvalidArgumentError(`${flag} must be a whole number of ${unit}${min > 0 ? ` (at least ${min})` : ''}, got ${JSON.stringify(value)}`)
    }
    return n
  }
}

function companiesCount(value: string): number {
  const n = Number(value)
  if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError(`--companies must be a positive whole number, got ${JSON.stringify(value)}`)
  return n
}

/**
 * Flags of `serve` that no environment variable sets: `--new-state` discards the keys and quota
 * counts of a lost state file, which a variable left in a unit file would do again at every start.
 */
export const SERVE_COMMAND_LINE_ONLY: readonly string[] = Object.freeze(['--new-state'])

/**
 * Every other `serve` flag and the environment variable that sets it when the flag is not given (a
 * container or a unit file configures the server without a command line). The command line wins
 * over the environment, the environment over the default. The table in grammar-docs/guides/serving.md lists exactly these
 * (test/cli/serve-env.test.ts keeps it so). Switches take 1/true/yes/on or 0/false/no/off.
 */
export const SERVE_ENVIRONMENT = Object.freeze({
  '--port': 'VENTUREQL_PORT',
  '--host': 'VENTUREQL_HOST',
  '--data-dir': 'VENTUREQL_DATA_DIR',
  '--database': 'VENTUREQL_DATABASE_URL',
  '--schema': 'VENTUREQL_SCHEMA',
  '--tls-cert': 'VENTUREQL_TLS_CERT',
  '--tls-key': 'VENTUREQL_TLS_KEY',
  '--http': 'VENTUREQL_HTTP',
  '--companies': 'VENTUREQL_COMPANIES',
  '--base-url': 'VENTUREQL_BASE_URL',
  '--access-log': 'VENTUREQL_ACCESS_LOG',
  '--log-format': 'VENTUREQL_LOG_FORMAT',
  '--metrics': 'VENTUREQL_METRICS',
  '--cors': 'VENTUREQL_CORS',
  '--query-timeout': 'VENTUREQL_QUERY_TIMEOUT',
  '--workers': 'VENTUREQL_WORKERS',
  '--connections': 'VENTUREQL_CONNECTIONS',
  '--tenant-concurrency': 'VENTUREQL_TENANT_CONCURRENCY',
  '--tenant-backlog': 'VENTUREQL_TENANT_BACKLOG',
  '--tenant-allowance': 'VENTUREQL_TENANT_ALLOWANCE',
  '--memory-budget': 'VENTUREQL_MEMORY_BUDGET',
  '--shutdown-timeout': 'VENTUREQL_SHUTDOWN_TIMEOUT',
} as const)

type ServeFlag = keyof typeof SERVE_ENVIRONMENT

/** A switch's value from its environment variable; commander would take any value (even "0") as on. */
function switchFromEnv(variable: string): boolean {
  const value = (process.env[variable] ?? '').trim().toLowerCase()
  if (['1', 'true', 'yes', 'on'].includes(value)) return true
  if (['0', 'false', 'no', 'off', ''].includes(value)) return false
  throw new ServeError(`${variable} is a switch: 1, true, yes or on, or 0, false, no or off; got ${JSON.stringify(process.env[variable])}`)
}

function corsOrigins(value: string): string[] {
  return value.split(',').map((o) => o.trim()).filter((o) => o !== '')
}

/** What `serve`'s parsed flags and environment variables ask for, as `startServe` options. */
export function serveOptionsOf(command: Command): ServeOptions {
  const opts = command.opts<{
    port: number; host: string; dataDir: string; database?: string; schema?: string; tlsCert?: string; tlsKey?: string
    http?: boolean; companies: number; baseUrl?: string; accessLog?: boolean; logFormat: 'auto' | LogFormat; metrics?: boolean; cors?: string[]
    queryTimeout: number; workers?: number; connections?: number; shutdownTimeout: number; newState?: boolean
    tenantConcurrency?: number; tenantBacklog?: number; tenantAllowance?: number; memoryBudget?: number
  }>()
  // Switches set by the environment: commander turns any value on ("0" too); read it as a switch.
  const switched = (name: 'http' | 'accessLog' | 'metrics', flag: ServeFlag): boolean | undefined =>
    command.getOptionValueSource(name) === 'env' ? switchFromEnv(SERVE_ENVIRONMENT[flag]) : opts[name]
  // An empty variable is no value (commander passes it on as "").
  const given = (value: string | undefined) => (value === '' ? undefined : value)
  const { shutdownTimeout, database, schema, tlsCert, tlsKey, baseUrl, ...rest } = opts
  return {
    ...rest,
    database: given(database), schema: given(schema), tlsCert: given(tlsCert), tlsKey: given(tlsKey), baseUrl: given(baseUrl),
    http: switched('http', '--http'), accessLog: switched('accessLog', '--access-log'), metrics: switched('metrics', '--metrics'),
    shutdownTimeoutMs: shutdownTimeout,
  }
}

export function registerServe(program: Command): void {
  const command = program.command('serve')
    .description('Run the HTTP API over HTTPS (demo database, keys and a development certificate are created on first run). '
      + 'Every flag can also be set by the environment variable shown with it (the flag wins).')
  const option = (flag: ServeFlag, spelled: string, help: string): Option => {
    const variable = SERVE_ENVIRONMENT[flag]
    return new Option(spelled, help).env(variable)
  }
  command
    .addOption(option('--port', '--port <n>', 'port to listen on (0: any free port)').argParser(port).default(DEFAULT_PORT))
    .addOption(option('--host', '--host <address>', 'address to bind; 0.0.0.0 for every interface (e.g. in a container)').default(DEFAULT_HOST))
    .addOption(option('--data-dir', '--data-dir <dir>', 'where the demo database and the development certificate live').default(DEFAULT_DATA_DIR))
    .addOption(option('--database', '--database <target>', `serve this database instead of <data-dir>/${DATABASE_FILE}: a SQLite file (must exist) or postgres://user@host:port/database`))
    .addOption(option('--schema', '--schema <name>', 'PostgreSQL schema holding the tables (with a postgres:// --database)'))
    .addOption(option('--tls-cert', '--tls-cert <file>', 'PEM certificate (with --tls-key) instead of the development certificate'))
    .addOption(option('--tls-key', '--tls-key <file>', 'PEM private key of --tls-cert'))
    .addOption(option('--http', '--http', 'plain HTTP, only for running behind a reverse proxy that terminates TLS'))
    .addOption(option('--companies', '--companies <n>', 'size of the demo database when it is generated').argParser(companiesCount).default(DEFAULT_DEMO_COMPANIES))
    .addOption(option('--base-url', '--base-url <url>', 'public base URL used in response URLs and the OpenAPI document, e.g. behind a proxy (default: the request\'s origin)'))
    .addOption(option('--access-log', '--access-log', 'one log line per request on stderr: request id, method, route, path, status, duration (never the query string or a key)'))
    .addOption(option('--log-format', '--log-format <format>', 'request log form: auto (pretty on a terminal, JSON otherwise), json or pretty').choices(['auto', 'json', 'pretty']).default('auto'))
    .addOption(option('--metrics', '--metrics', 'serve Prometheus metrics at GET /metrics (no key needed: bind a private address or filter the path at the proxy)'))
    .addOption(option('--cors', '--cors <origins>', 'let browser pages from these origins call the API: comma-separated, e.g. https://app.example.com, or * for any (default: none)').argParser(corsOrigins))
    .addOption(option('--query-timeout', '--query-timeout <ms>', 'milliseconds a request\'s query may run before it is stopped and answered 503 with Retry-After (0: no limit)').argParser(wholeNumber('--query-timeout', 0, 'milliseconds')).default(DEFAULT_QUERY_TIMEOUT_MS))
    .addOption(option('--workers', '--workers <n>', 'SQLite: worker threads that run queries (default: one per core, plus one kept for key checks and lookups); PostgreSQL: calls other than key checks and lookups that run at once (default: one per core of this machine)').argParser(wholeNumber('--workers', 1, 'threads')))
    .addOption(option('--connections', '--connections <n>', `PostgreSQL: connections in the pool, the queries that run at once (default ${DEFAULT_PG_CONNECTIONS})`).argParser(wholeNumber('--connections', 1, 'connections')))
    .addOption(option('--tenant-concurrency', '--tenant-concurrency <n>', 'heavy queries one key runs at once; its others wait their turn (default: half the workers, at least 1)').argParser(wholeNumber('--tenant-concurrency', 1, 'queries')))
    .addOption(option('--tenant-backlog', '--tenant-backlog <n>', 'queries of one key that may wait beyond those running; more are answered 429 with Retry-After (default 64)').argParser(wholeNumber('--tenant-backlog', 0, 'queries')))
    .addOption(option('--tenant-allowance', '--tenant-allowance <ms>', 'milliseconds of worker time one key\'s heavy queries may use per minute; beyond, they are answered 429 with Retry-After (default 30000; 0: no limit)').argParser(wholeNumber('--tenant-allowance', 0, 'milliseconds')))
    .addOption(option('--memory-budget', '--memory-budget <mb>', `SQLite: megabytes of memory the engine may hold; half is shared out as each connection's mapped size of the data file (default ${DEFAULT_MEMORY_BUDGET_MB}, at least ${MIN_MEMORY_BUDGET_BYTES / MB})`).argParser(wholeNumber('--memory-budget', MIN_MEMORY_BUDGET_BYTES / MB, 'megabytes')))
    .option('--new-state', 'SQLite: start with an empty state file (no API keys, quota counts or stored queries) when the database\'s is missing, empty, another database\'s or corrupt, which is refused otherwise; a foreign or corrupt one is set aside. Command line only, never from the environment')
    .addOption(option('--shutdown-timeout', '--shutdown-timeout <ms>', 'on SIGTERM/SIGINT, time to answer the requests received before exiting; those still running near the end are answered 503').argParser(wholeNumber('--shutdown-timeout', 0, 'milliseconds')).default(DEFAULT_SHUTDOWN_TIMEOUT_MS))
    .action(async () => {
      let handle: ServeHandle
      // At start, while the heaps are small: this process and its worker threads (cli/heap.ts).
      tuneHeapForServing()
      try {
        handle = await startServe(serveOptionsOf(command))
      } catch (error) {
        process.stderr.write(`ventureql serve: ${error instanceof Error ? error.message : String(error)}\n`)
        process.exitCode = 1
        return
      }
      let signals = 0
      const shutdown = (signal: NodeJS.Signals) => {
        // A second signal is the operator overriding the wait; exit 1 says requests may have been cut.
        if (++signals > 1) {
          process.stderr.write(`ventureql: ${signal} again, exiting without waiting\n`)
          process.exit(1)
        }
        process.stderr.write(`ventureql: ${signal}, answering the requests received (at most ${command.opts<{ shutdownTimeout: number }>().shutdownTimeout} ms), then closing the database ...\n`)
        handle.close().then(
          (s) => {
            process.stderr.write(`ventureql: stopped after ${s.ms} ms: ${s.completed} requests answered, ${s.refused} answered 503, ${s.cut} responses cut off, ${s.closedIdle} idle connections closed\n`)
            process.exit(0)
          },
          (error: unknown) => { process.stderr.write(`ventureql: shutdown failed: ${String(error)}\n`); process.exit(1) },
        )
      }
      process.on('SIGINT', shutdown)
      process.on('SIGTERM', shutdown)
    })
}

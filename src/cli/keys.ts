/**
 * @module `ventureql keys create | list | revoke`: API keys of the HTTP server (spec section 5),
 * kept in the server's database (hashed; src/store/api-keys.ts), so `serve` sees a new key or a
 * revocation at once, without a restart.
 *
 * `create` prints the key once, alone on stdout (so `KEY=$(ventureql keys create ...)` works), and
 * a line for the person on stderr. Nothing else ever prints a key: `list` shows the prefix only,
 * and the store has only the key's hash.
 *
 * The database is `--database FILE`, else `<--data-dir>/ventureql.db` (default `./.ventureql`, the
 * same as `serve` and `demo`). It must exist: creating an empty one here would make `serve` find a
 * database and skip generating the demo data.
 */
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Command } from 'commander'
import type { Issue } from '../errors/issue.js'
import { createApiKey, listApiKeys, PERIOD_FORMS, PLANS, revokeApiKey, SHOWN_PREFIX_LENGTH, type ApiKeyRecord, type Plan } from '../store/api-keys.js'
import type { VentureDb } from '../store/open.js'
import { PostgresConnectionError } from '../store/open-postgres.js'
import { isPostgresUrl, openTarget, TargetError } from '../store/open-target.js'
import { StateFileError } from '../store/state-file.js'

/** Where `serve` and `demo` keep their database unless told otherwise. */
export const DEFAULT_DATA_DIR = './.ventureql'
export const DATABASE_FILE_NAME = 'ventureql.db'
/** The database of every command not given `--database`: the one `serve` creates and `keys` manages. */
export const DEFAULT_DATABASE = `${DEFAULT_DATA_DIR}/${DATABASE_FILE_NAME}`
export const DEFAULT_DATABASE_HELP = `default ${DEFAULT_DATABASE}, the database of serve and keys`

/** Requests per period of a key created without `--quota`: those of the keys `serve` creates on its first run. */
export const DEFAULT_QUOTAS: Readonly<Record<Plan, number>> = Object.freeze({ full: 100_000, trial: 1_000 })

interface DatabaseFlags {
  readonly database?: string
  readonly dataDir?: string
  readonly schema?: string
  readonly newState?: boolean
}

/** A failure the user can fix: printed on stderr as `ventureql keys <command>: <message>`, exit code 1. */
class UsageError extends Error {}

/** `--database` (a file or a postgres:// URL), else the data directory's database file. */
function databaseTarget(flags: DatabaseFlags): string {
  if (flags.database !== undefined && flags.dataDir !== undefined) {
    throw new UsageError('give --database or --data-dir, not both')
  }
  if (flags.database !== undefined && isPostgresUrl(flags.database)) return flags.database
  const file = resolve(flags.database ?? join(flags.dataDir ?? DEFAULT_DATA_DIR, DATABASE_FILE_NAME))
  if (!existsSync(file)) {
    throw new UsageError(`no database at ${file}; run \`ventureql serve\` (or \`ventureql demo\`) first to create it, or point --database at one`)
  }
  return file
}

async function withDatabase<T>(flags: DatabaseFlags, action: (vdb: VentureDb) => Promise<T>): Promise<T> {
  let vdb: VentureDb
  try {
    const target = databaseTarget(flags)
    if (flags.newState && isPostgresUrl(target)) throw new UsageError('--new-state applies to a SQLite database (its -state file); on PostgreSQL keys live in the database itself')
    vdb = await openTarget(target, { schema: flags.schema, ...(flags.newState ? { sqlite: { newState: true } } : {}) })
  } catch (error) {
    if (error instanceof TargetError || error instanceof PostgresConnectionError || error instanceof StateFileError) throw new UsageError(error.message)
    throw error
  }
  const recovered = vdb.dialect === 'sqlite' ? vdb.stateFile?.recovered : undefined
  if (recovered !== undefined) process.stderr.write(`${recovered}\n`)
  try {
    return await action(vdb)
  } finally {
    await vdb.close()
  }
}

/** The store's issues speak of request paths (`/quota`); here they are about flags (`--quota`). */
function flagMessage(issues: readonly Issue[]): string {
  return issues.map((i) => `--${i.path.replace(/^\//, '')}: ${i.message}${i.got !== undefined ? ` (got ${i.got})` : ''}`).join('; ')
}

/** `--quota` as typed: digits only, so "10abc" or "1e3" is refused instead of read as something else. */
function quotaFlag(text: string): number {
  if (!/^\s*[0-9]{1,15}\s*$/.test(text) || Number(text) < 1) {
    throw new UsageError(`--quota: a quota is a positive whole number of requests per period (got ${JSON.stringify(text)})`)
  }
  return Number(text)
}

function describeQuota(record: ApiKeyRecord): string {
  const period = /^[0-9]+$/.test(record.quotaPeriod) ? `${record.quotaPeriod} seconds` : record.quotaPeriod
  return `${record.quotaLimit} requests per ${period}`
}

const LIST_COLUMNS = ['id', 'prefix', 'plan', 'quota', 'period', 'label', 'created', 'revoked'] as const

function listRow(r: ApiKeyRecord): Record<(typeof LIST_COLUMNS)[number], string> {
  return {
    id: String(r.keyId), prefix: r.prefix, plan: r.plan, quota: String(r.quotaLimit), period: r.quotaPeriod,
    label: r.label ?? '', created: r.createdAt, revoked: r.revokedAt ?? '',
  }
}

function table(rows: readonly Record<string, string>[], columns: readonly string[]): string {
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => r[c]!.length)))
  const line = (cells: readonly string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()
  return [line(columns), ...rows.map((r) => line(columns.map((c) => r[c]!)))].join('\n')
}

/** Runs a subcommand, turning a UsageError into a message and exit code 1. */
function guarded<A extends unknown[]>(command: string, action: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args) => {
    try {
      await action(...args)
    } catch (error) {
      if (!(error instanceof UsageError)) throw error
      process.stderr.write(`ventureql keys ${command}: ${error.message}\n`)
      process.exitCode = 1
    }
  }
}

function databaseOptions(command: Command): Command {
  return command
    .option('--database <target>', 'the server\'s database: a SQLite file, or postgres://user@host:port/database')
    .option('--schema <name>', 'PostgreSQL schema holding the tables (with a postgres:// --database)')
    .option('--data-dir <dir>', `data directory holding ${DATABASE_FILE_NAME} (default ${DEFAULT_DATA_DIR})`)
    .option('--new-state', 'SQLite: start with an empty state file (no keys, quota counts or stored queries) when the database\'s is missing, empty, another database\'s or corrupt, which is refused otherwise')
}

export function registerKeys(program: Command): void {
  const keys = program.command('keys').description('Create, list and revoke API keys of the HTTP server.')

  databaseOptions(keys.command('create'))
    .description('Create an API key and print it once (stdout); only its hash is stored.')
    .requiredOption('--plan <plan>', `access plan: ${PLANS.join(' or ')} (trial: at most 50 results, first page only)`)
    .option('--quota <n>', `requests allowed per period (default ${DEFAULT_QUOTAS.full} for a full key, ${DEFAULT_QUOTAS.trial} for a trial key, as the keys \`serve\` creates)`)
    .option('--period <period>', `quota period: ${PERIOD_FORMS}`, 'day')
    .option('--label <text>', 'a note to tell keys apart in `keys list`')
    .action(guarded('create', async (opts: DatabaseFlags & { plan: string; quota?: string; period: string; label?: string }) => {
      const plan = opts.plan.trim().toLowerCase() as Plan
      // An unknown plan is refused by createApiKey, naming --plan; the quota it is given then does not matter.
      const quota = opts.quota === undefined ? DEFAULT_QUOTAS[plan] ?? DEFAULT_QUOTAS.full : quotaFlag(opts.quota)
      await withDatabase(opts, async (vdb) => {
        const made = await createApiKey(vdb, { plan, quota, period: opts.period, ...(opts.label !== undefined ? { label: opts.label } : {}) })
        if (!made.ok) throw new UsageError(flagMessage(made.issues))
        const { key, record } = made.value
        process.stdout.write(`${key}\n`)
        process.stderr.write(`created ${record.plan} key ${record.keyId} (${record.prefix}…), ${describeQuota(record)}`
          + `${record.label !== null ? `, label ${JSON.stringify(record.label)}` : ''}. It is shown only this once: store it now.\n`)
      })
    }))

  databaseOptions(keys.command('list'))
    .description('List API keys (id, prefix, plan, quota, period, label, created, revoked); never the keys themselves.')
    .option('--json', 'print a JSON array instead of a table')
    .action(guarded('list', async (opts: DatabaseFlags & { json?: boolean }) => {
      await withDatabase(opts, async (vdb) => {
        const rows = (await listApiKeys(vdb)).map(listRow)
        if (opts.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`)
        else if (rows.length === 0) process.stderr.write('no API keys yet; create one with `ventureql keys create --plan full --quota 1000 --period day`\n')
        else process.stdout.write(`${table(rows, LIST_COLUMNS)}\n`)
      })
    }))

  databaseOptions(keys.command('revoke'))
    .description('Revoke an API key, named by its id, its prefix (as `keys list` shows it) or the key itself.')
    .argument('<key>', 'key id, key prefix, or the key')
    .action(guarded('revoke', async (which: string, opts: DatabaseFlags) => {
      const target = which.trim()
      if (target === '') throw new UsageError('name the key to revoke: its id, its prefix or the key')
      await withDatabase(opts, async (vdb) => {
        const revoked = await revokeApiKey(vdb, target)
        // A whole key is a secret: messages name it by what `keys list` shows, never by its text.
        const named = /^[0-9]+$/.test(target) ? `id ${target}` : target.length > SHOWN_PREFIX_LENGTH ? 'the given key' : `prefix ${target}`
        if (revoked.length === 0) throw new UsageError(`no active key matches ${named} (see \`ventureql keys list\`; a revoked key stays revoked)`)
        for (const r of revoked) process.stdout.write(`revoked ${r.plan} key ${r.keyId} (${r.prefix}…)\n`)
      })
    }))
}

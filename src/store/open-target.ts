/**
 * @module One way to name a database on the command line and in configuration: a SQLite file path,
 * or a PostgreSQL URL (`postgres://user@host:port/db` or `postgresql://...`, with `--schema`
 * optional). Every CLI command that takes `--database` opens it through here, so none treats a URL
 * as a file name; `describeTarget` names it in messages without its password.
 */
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { openDatabase, type OpenOptions, type VentureDb } from './open.js'
import { openPostgres } from './open-postgres.js'

const POSTGRES_URL = /^postgres(?:ql)?:\/\//i

/** Whether `target` names a PostgreSQL database rather than a SQLite file. */
export const isPostgresUrl = (target: string): boolean => POSTGRES_URL.test(target)

export interface TargetOptions {
  /** PostgreSQL: the schema holding the tables (created if missing). Refused for a SQLite file. */
  readonly schema?: string | undefined
  /** SQLite: the file must exist (default true: opening would otherwise create an empty database). */
  readonly mustExist?: boolean
  /** SQLite: open read-only. */
  readonly readonly?: boolean
  /** SQLite options (busy timeout, memory map). */
  readonly sqlite?: OpenOptions
  /** PostgreSQL: the server-side backstop of query budgets (`statement_timeout`). */
  readonly statementTimeoutMs?: number
  /** PostgreSQL: pool size. */
  readonly maxConnections?: number
}

/** A problem naming the database that the user can fix: one line, no stack. */
export class TargetError extends Error {
  override readonly name = 'TargetError'
}

/** Opens the database `target` names; the caller closes it. */
export async function openTarget(target: string, options: TargetOptions = {}): Promise<VentureDb> {
  if (isPostgresUrl(target)) {
    return openPostgres({
      connectionString: target,
      ...(options.schema !== undefined ? { schema: options.schema } : {}),
      ...(options.statementTimeoutMs ? { statementTimeoutMs: options.statementTimeoutMs } : {}),
      ...(options.maxConnections ? { maxConnections: options.maxConnections } : {}),
    })
  }
  if (options.schema !== undefined) throw new TargetError(`--schema applies to a PostgreSQL database (postgres://...), not to the SQLite file ${target}`)
  const file = resolve(target)
  if ((options.mustExist ?? true) && !existsSync(file)) {
    throw new TargetError(`the database ${file} does not exist; create one with \`ventureql generate\` or \`ventureql import\`, or give a postgres:// URL`)
  }
  return openDatabase(file, { ...options.sqlite, ...(options.readonly ? { readonly: true } : {}) })
}

/** The target for messages: a URL without its password, or the resolved file path. */
export function describeTarget(target: string, schema?: string): string {
  if (!isPostgresUrl(target)) return resolve(target)
  try {
    const url = new URL(target)
    url.password = ''
    return `${url.protocol}//${url.username ? `${url.username}@` : ''}${url.host}${url.pathname}${schema ? ` (schema ${schema})` : ''}`
  } catch {
    return 'the PostgreSQL URL given'
  }
}

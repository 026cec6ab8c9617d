/**
 * @module Bulk writes into PostgreSQL through `COPY ... FROM STDIN` (pg-copy-streams): the one
 * writer of `ventureql import`/`generate` into PostgreSQL (ingest-postgres.ts) and of
 * `ventureql copy` (copy.ts). Text format: tab-separated, `\N` for NULL, backslash escapes.
 * Values go in as their text, exactly as a bound parameter would (`1`/`0` into an integer column,
 * ISO text dates), so a value stored by COPY equals the one an INSERT stored before.
 *
 * Also here: the data version on a raw connection (the same rules as `setDataVersion`: the row
 * locked, caches of other versions dropped), for loads that run on one connection in one
 * transaction.
 */
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { PoolClient } from 'pg'
import { from as copyFrom } from 'pg-copy-streams'
import { DATA_VERSION_KEY, META_TABLE, VERSIONED_CACHE_TABLES } from './schema/stored-query-tables.js'

const NEEDS_ESCAPE = /[\\\n\r\t]/
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' }

/** One value in COPY's text format. */
export function copyValue(value: unknown): string {
  if (value === null || value === undefined) return '\\N'
  switch (typeof value) {
    case 'number': return String(value)
    case 'bigint': return value.toString()
    case 'boolean': return value ? '1' : '0'
    case 'string': return NEEDS_ESCAPE.test(value) ? value.replace(/[\\\n\r\t]/g, (c) => ESCAPES[c]!) : value
    default: throw new Error(`COPY: cannot write a value of type ${typeof value}`)
  }
}

/** One row as a COPY text line (with its newline). */
export function copyLine(row: readonly unknown[]): string {
  let line = copyValue(row[0])
  for (let i = 1; i < row.length; i++) line += '\t' + copyValue(row[i])
  return line + '\n'
}

/** Lines grouped into chunks of about this many characters: few stream writes, bounded memory. */
const CHUNK_CHARS = 1 << 20

/** Groups lines into chunks for the COPY stream. */
export function* chunkLines(lines: Iterable<string>): Generator<string> {
  let chunk = ''
  for (const line of lines) {
    chunk += line
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk
      chunk = ''
    }
  }
  if (chunk) yield chunk
}

/**
 * `COPY "table" (columns) FROM STDIN` of the given text (chunks of whole lines) on `client`.
 * Resolves when the server has taken every row; rejects with the server's error (the caller's
 * transaction is then aborted: roll it back).
 */
export async function copyInto(
  client: PoolClient, table: string, columns: readonly string[], chunks: Iterable<string> | AsyncIterable<string>,
): Promise<void> {
  const stream = client.query(copyFrom(`copy ${quoteTable(table)} (${columns.map((c) => `"${c}"`).join(', ')}) from stdin`))
  await pipeline(Readable.from(chunks, { objectMode: false }), stream)
}

/** `pg_temp.x` stays as it is; a plain name is quoted. */
function quoteTable(table: string): string {
  return table.startsWith('pg_temp.') ? `pg_temp."${table.slice('pg_temp.'.length)}"` : `"${table}"`
}

/**
 * Sets the data version inside the caller's transaction on `client`: at least `atLeast`, and
 * always above the current one (new rows get a new version, which every cache in every process
 * is keyed by). Locks the row first so a concurrent bump or load waits. Returns the version set.
 */
export async function moveDataVersion(client: PoolClient, atLeast = 0): Promise<number> {
  const { rows } = await client.query<{ value: string }>(`select value from "${META_TABLE}" where key = $1 for update`, [DATA_VERSION_KEY])
  const current = rows.length === 0 ? 0 : Number(rows[0]!.value)
  const next = Math.max(atLeast, current + 1)
  await client.query(`insert into "${META_TABLE}" (key, value) values ($1, $2) on conflict (key) do update set value = excluded.value`, [DATA_VERSION_KEY, String(next)])
  for (const table of VERSIONED_CACHE_TABLES) await client.query(`delete from "${table}" where data_version <> $1`, [next])
  return next
}

/**
 * The secondary indexes of `tables` in the current schema (not those behind primary keys or other
 * constraints), with the statements that recreate them: a load into empty tables drops them and
 * rebuilds them at the end, inside its transaction (a failed load gets them back by rolling back).
 */
export async function secondaryIndexes(client: PoolClient, tables: readonly string[]): Promise<{ name: string; definition: string }[]> {
  const { rows } = await client.query<{ name: string; definition: string }>(`
    select i.indexname as name, i.indexdef as definition
    from pg_indexes i
    where i.schemaname = current_schema() and i.tablename = any($1::text[])
      and not exists (select 1 from pg_constraint c where c.conindid = (quote_ident(i.schemaname) || '.' || quote_ident(i.indexname))::regclass)
    order by i.tablename, i.indexname`, [tables])
  return rows
}

/**
 * @module Writing generated records: into a database through the `Ingestor` (the same loader as
 * `ventureql import`), or to a JSON Lines file that `ventureql import` reads back.
 */
import { createWriteStream } from 'node:fs'
import { once } from 'node:events'
import { Ingestor, type IngestOptions, type IngestSummary } from '../ingest.js'
import { PostgresIngestor, type IngestPostgresOptions } from '../ingest-postgres.js'
import type { PostgresVentureDb, SqliteVentureDb, VentureDb } from '../open.js'
import { parseRecord } from '../record-schemas.js'
import { META_TABLE } from '../schema/stored-query-tables.js'
import { asOfDate, generateRecords, type GenerateOptions } from './generator.js'

/**
 * The `meta` key holding the generator's "today" (`GenerateOptions.asOf`, YYYY-MM-DD) of a
 * generated database, written by `generateInto` / `generateIntoDatabase`: what the data's dates
 * are relative to, so the CLI can say how old the demo data is. Absent in imported databases.
 */
export const GENERATED_AS_OF_KEY = 'generated_as_of'

/** The day a generated database's dates are relative to; undefined when it was not generated. */
export async function generatedAsOf(vdb: VentureDb): Promise<string | undefined> {
  const row = await vdb.db.selectFrom(META_TABLE).select('value').where('key', '=', GENERATED_AS_OF_KEY).executeTakeFirst()
  return row?.value ?? undefined
}

export interface Progress {
  /** Companies generated so far. */
  readonly companies: number
  readonly total: number
  /** A finishing phase name once all records are written ('investments', 'indexes', ...). */
  readonly step?: string
}

/** Generates into an open database and finishes the ingest (derived data, indexes, ANALYZE). */
export function generateInto(vdb: SqliteVentureDb, options: GenerateOptions & { onProgress?: (p: Progress) => void; ingest?: IngestOptions }): IngestSummary {
  // Settled once: a run that crosses midnight still dates every record from the same day.
  const asOf = asOfDate(options.asOf)
  options = { ...options, asOf }
  const ingestor = new Ingestor(vdb, options.ingest)
  const total = Math.max(0, Math.floor(options.companies))
  const every = Math.max(1, Math.min(10_000, Math.floor(total / 100)))
  let companies = 0
  let line = 0
  for (const envelope of generateRecords(options)) {
    line++
    const parsed = parseRecord(envelope)
    // Generated records always validate; a failure here is a generator bug, not bad input.
    if (!parsed.ok) throw new Error(`generator produced an invalid record (#${line}): ${parsed.reason}`)
    ingestor.write(parsed.value)
    if (envelope.type === 'company' && ++companies % every === 0) options.onProgress?.({ companies, total })
  }
  options.onProgress?.({ companies, total })
  const summary = ingestor.finish((step) => options.onProgress?.({ companies, total, step }))
  vdb.sqlite.prepare(`insert into ${META_TABLE} (key, value) values (?, ?) on conflict (key) do update set value = excluded.value`).run(GENERATED_AS_OF_KEY, asOf)
  return summary
}

/**
 * Generates into either backend: `generateInto` on SQLite; on PostgreSQL the same records through
 * `PostgresIngestor` (COPY, one transaction: a failure leaves the schema as it was).
 */
export async function generateIntoDatabase(
  vdb: VentureDb,
  options: GenerateOptions & { onProgress?: (p: Progress) => void; ingest?: IngestOptions; postgres?: IngestPostgresOptions },
): Promise<IngestSummary> {
  if (vdb.dialect === 'sqlite') return generateInto(vdb, options)
  return generateIntoPostgres(vdb, options)
}

async function generateIntoPostgres(
  vdb: PostgresVentureDb, options: GenerateOptions & { onProgress?: (p: Progress) => void; postgres?: IngestPostgresOptions },
): Promise<IngestSummary> {
  const asOf = asOfDate(options.asOf)
  options = { ...options, asOf }
  const ingestor = await PostgresIngestor.open(vdb, options.postgres)
  const total = Math.max(0, Math.floor(options.companies))
  const every = Math.max(1, Math.min(10_000, Math.floor(total / 100)))
  let companies = 0
  let line = 0
  try {
    for (const envelope of generateRecords(options)) {
      line++
      const parsed = parseRecord(envelope)
      if (!parsed.ok) throw new Error(`generator produced an invalid record (#${line}): ${parsed.reason}`)
      ingestor.write(parsed.value)
      const wait = ingestor.drain()
      if (wait) await wait
      if (envelope.type === 'company' && ++companies % every === 0) options.onProgress?.({ companies, total })
    }
  } catch (error) {
    await ingestor.abort()
    throw error
  }
  options.onProgress?.({ companies, total })
  const summary = await ingestor.finish((step) => options.onProgress?.({ companies, total, step }))
  await vdb.db.insertInto(META_TABLE).values({ key: GENERATED_AS_OF_KEY, value: asOf })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: asOf })).execute()
  return summary
}

/** Writes the generated records as JSON Lines (one envelope per line). Returns the line count. */
export async function generateJsonl(file: string, options: GenerateOptions & { onProgress?: (p: Progress) => void }): Promise<number> {
  options = { ...options, asOf: asOfDate(options.asOf) }
  const out = createWriteStream(file, { encoding: 'utf8' })
  const total = Math.max(0, Math.floor(options.companies))
  const every = Math.max(1, Math.min(10_000, Math.floor(total / 100)))
  let companies = 0
  let lines = 0
  let chunk: string[] = []
  for (const envelope of generateRecords(options)) {
    chunk.push(JSON.stringify(envelope))
    lines++
    if (envelope.type === 'company' && ++companies % every === 0) options.onProgress?.({ companies, total })
    if (chunk.length >= 2000) {
      if (!out.write(chunk.join('\n') + '\n')) await once(out, 'drain')
      chunk = []
    }
  }
  if (chunk.length) out.write(chunk.join('\n') + '\n')
  out.end()
  await once(out, 'finish')
  options.onProgress?.({ companies, total })
  return lines
}

/**
 * An export's batches (`Pipeline.exportBatch`) read without the data file's memory map
 * (execute/unmapped.ts): the pages they read do not stay resident in the process as file-backed
 * memory, where reading the same records through the map (pages of the stored query) leaves them.
 * Measured as the growth of the process's file-backed RSS (Linux, /proc/self/status `RssFile`) on a
 * fresh connection to a generated file, and the connection's `mmap_size` is restored afterwards.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { resolveLimits } from '../../src/check/limits.js'
import { createPipeline, type Pipeline } from '../../src/execute/pipeline.js'
import { unmapped } from '../../src/execute/unmapped.js'
import { createFixtureDatabase } from '../../src/store/generate/fixture.js'
import { openDatabase, type SqliteVentureDb } from '../../src/store/open.js'

const COMPANIES = 5000
let dir: string
let file: string
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vql-unmapped-'))
  file = join(dir, 'data.db')
  const vdb = await createFixtureDatabase({ companies: COMPANIES, file })
  vdb.sqlite.pragma('wal_checkpoint(TRUNCATE)')
  await vdb.close()
}, 60_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The process's file-backed resident memory, MB. */
function residentFileMb(): number {
  const kb = /^RssFile:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]
  if (kb === undefined) throw new Error('no RssFile in /proc/self/status')
  return Number(kb) / 1024
}

async function opened(): Promise<{ vdb: SqliteVentureDb; pipeline: Pipeline; queryId: string }> {
  const vdb = openDatabase(file)
  const pipeline = createPipeline(vdb, resolveLimits({}))
  const stored = await pipeline.store({ dataset: 'companies' })
  if (!stored.ok) throw new Error(JSON.stringify(stored.issues))
  return { vdb, pipeline, queryId: stored.value.query_id }
}

/** Every record id, by export batches of 500. */
async function exported(pipeline: Pipeline, queryId: string): Promise<number[]> {
  const ids: number[] = []
  let after: readonly (string | number | boolean | null)[] | undefined
  for (;;) {
    const batch = await pipeline.exportBatch(queryId, { after, limit: 500 })
    if (!batch.ok) throw new Error(JSON.stringify(batch.issues))
    ids.push(...batch.value.records.map((r) => Number(r.id)))
    if (batch.value.next === undefined) return ids
    after = batch.value.next
  }
}

/** Every record id, by pages of 50 (read through the map). */
async function paged(pipeline: Pipeline, queryId: string): Promise<number[]> {
  const ids: number[] = []
  for (let page = 1; ; page++) {
    const result = await pipeline.page(queryId, { page, per_page: 50 })
    if (!result.ok) throw new Error(JSON.stringify(result.issues))
    ids.push(...result.value.results.map((r) => Number(r.id)))
    if (result.value.results.length < 50) return ids
  }
}

it('pages read through the map leave its pages resident (else the export test below could not tell)', async () => {
  const { vdb, pipeline, queryId } = await opened()
  try {
    const before = residentFileMb()
    expect(await paged(pipeline, queryId)).toHaveLength(COMPANIES)
    console.info(`paged: file-backed RSS +${(residentFileMb() - before).toFixed(2)} MB`)
    expect(residentFileMb() - before).toBeGreaterThan(2)
  } finally {
    await vdb.close()
  }
})

it('an export reads every record without leaving the mapped pages resident, and restores mmap_size', async () => {
  const { vdb, pipeline, queryId } = await opened()
  try {
    const mmapSize = vdb.sqlite.pragma('mmap_size', { simple: true })
    expect(mmapSize).toBeGreaterThan(0)
    const before = residentFileMb()
    const ids = await exported(pipeline, queryId)
    const growth = residentFileMb() - before
    console.info(`exported: file-backed RSS +${growth.toFixed(2)} MB`)
    expect(ids).toHaveLength(COMPANIES)
    expect(new Set(ids).size).toBe(COMPANIES)
    expect(growth).toBeLessThan(1)
    expect(vdb.sqlite.pragma('mmap_size', { simple: true })).toBe(mmapSize)
    // And the same records, in the same order, as the pages.
    expect(await paged(pipeline, queryId)).toEqual(ids)
  } finally {
    await vdb.close()
  }
})

it('overlapping unmapped reads restore the map once, after the last ends', async () => {
  const vdb = openDatabase(file)
  try {
    const configured = vdb.sqlite.pragma('mmap_size', { simple: true })
    const seen: unknown[] = []
    let release!: () => void
    const gate = new Promise<void>((resolve) => { release = resolve })
    const first = unmapped(vdb.sqlite, async () => { await gate; seen.push(vdb.sqlite.pragma('mmap_size', { simple: true })) })
    await unmapped(vdb.sqlite, async () => { seen.push(vdb.sqlite.pragma('mmap_size', { simple: true })) })
    seen.push(vdb.sqlite.pragma('mmap_size', { simple: true }))
    release()
    await first
    expect(seen).toEqual([0, 0, 0])
    expect(vdb.sqlite.pragma('mmap_size', { simple: true })).toBe(configured)
  } finally {
    await vdb.close()
  }
})

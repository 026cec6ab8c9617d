/**
 * @module What the cost prediction knows of a database's data (`check/cost.ts`, `DataStatistics`):
 * the row count of every table it reads (`COST_TABLES`) and a fixed sample of each dataset's
 * records, from which a condition's selectivity is the fraction of the sample it holds for.
 *
 * Read once per data version on each connection (every change of rows gets a new version, so the
 * figures never go stale within one), in the background: when the pipeline is created and when a
 * request first sees a new version (`execute/pipeline.ts`); a condition's selectivity is
 * computed once per condition node and kept with it. The sample is the same for the same data:
 * `SAMPLE_SIZE` primary keys spread evenly over each table's key range, so a prediction is
 * deterministic. Conditions are evaluated on the sample by the reference evaluator
 * (`reference/evaluate.ts`), the language's semantics in plain JS: no statement per condition.
 */
import type { ConditionNode } from '../ast/nodes.js'
import { COST_TABLES, type DataStatistics } from '../check/cost.js'
import type { DatasetDef, DatasetName, FieldDef } from '../catalog/define.js'
import { DATASET_NAMES, datasets, primaryKeyColumn, resolveDataset } from '../catalog/index.js'
import { evaluate } from '../reference/evaluate.js'
import { createSnapshot, type RecordInput, type Snapshot } from '../reference/snapshot.js'
import type { ExecContext } from './context.js'
import { datasetRows } from './counts.js'

/**
 * Records sampled per dataset. A condition that holds for none of them is taken to hold for half a
 * record in `SAMPLE_SIZE` (`check/cost.ts` clamps), which is what a sample of this size can tell
 * apart; reading it costs a few milliseconds once per data version, and measuring a condition on
 * it 0.1-1 ms (`MAX_SAMPLED_CONDITIONS` per request).
 */
export const SAMPLE_SIZE = 500

/**
 * Reads the statistics of the data at `ctx.dataVersion`. `pause` runs before each statement: the
 * pipeline reads in the background and passes a turn of the event loop with no call in flight on
 * the connection (background.ts), so that the read starts after the call that asked for it and a
 * request on the same connection waits for one statement at most, not for the whole read.
 */
export async function readStatistics(ctx: ExecContext, pause: () => Promise<void> = async () => {}): Promise<DataStatistics> {
  const rows = new Map<string, number>()
  for (const table of COST_TABLES) {
    await pause()
    rows.set(table, await datasetRows(ctx, { table }))
  }
  const input: Record<string, RecordInput[]> = {}
  for (const name of DATASET_NAMES) input[name] = await sampleRecords(ctx, datasets[name], pause)
  return statisticsOf((table) => rows.get(table) ?? 0, createSnapshot(input))
}

/**
 * Statistics from row counts and a sample snapshot (what `readStatistics` reads; tests build
 * them by hand). A condition's selectivity is computed on first use and kept per node.
 */
export function statisticsOf(rows: (table: string) => number, sample: Snapshot): DataStatistics {
  const known = new WeakMap<ConditionNode, number>()
  return Object.freeze({
    rows,
    sampled: (dataset: string) => sample.datasets[(resolveDataset(dataset)?.name ?? dataset) as DatasetName]?.ids.length ?? 0,
    selectivity(node: ConditionNode, dataset: string): number | undefined {
      const cached = known.get(node)
      if (cached !== undefined) return cached
      const def = resolveDataset(dataset)
      const size = def === undefined ? 0 : sample.datasets[def.name].ids.length
      if (def === undefined || size === 0) return undefined
      let holds: number
      try {
        holds = evaluate(node, def, sample).size
      } catch {
        // A condition the evaluator cannot read (it knows the checker's normal form): no estimate.
        return undefined
      }
      const fraction = holds / size
      known.set(node, fraction)
      return fraction
    },
  })
}

/** `SAMPLE_SIZE` records of a dataset, primary keys spread evenly over its key range, with their tags. */
async function sampleRecords(ctx: ExecContext, def: DatasetDef, pause: () => Promise<void>): Promise<RecordInput[]> {
  const pk = primaryKeyColumn(def)
  await pause()
  const range = await ctx.db.selectFrom(def.table)
    .select((eb) => [eb.fn.min(pk).as('lo'), eb.fn.max(pk).as('hi')])
    .executeTakeFirst() as { lo: unknown; hi: unknown } | undefined
  if (range === undefined || range.lo === null || range.hi === null) return []
  await pause()
  const lo = Number(range.lo)
  const hi = Number(range.hi)
  const step = Math.max(1, (hi - lo + 1) / SAMPLE_SIZE)
  const keys = [...new Set(Array.from({ length: SAMPLE_SIZE }, (_, i) => Math.floor(lo + i * step)).filter((k) => k <= hi))]
  let stored = (await ctx.db.selectFrom(def.table).selectAll().where(pk, 'in', keys).execute()) as Record<string, unknown>[]
  await pause()
  // Keys far apart (a sparse range) hit few records: take the first ones in key order instead.
  if (stored.length < keys.length / 4) {
    await pause()
    stored = (await ctx.db.selectFrom(def.table).selectAll().orderBy(pk).limit(SAMPLE_SIZE).execute()) as Record<string, unknown>[]
  }
  const fields = Object.values(def.fields) as FieldDef[]
  const byPk = new Map<number, Record<string, unknown>>()
  const records = stored.map((raw) => {
    const record: Record<string, unknown> = {}
    for (const f of fields) if (f.column) record[f.name] = raw[f.column]
    byPk.set(Number(raw[pk]), record)
    return record
  })
  const owners = [...byPk.keys()]
  for (const f of fields) {
    if (!f.tags || owners.length === 0) continue
    const tagRows = (await ctx.db.selectFrom(f.tags.table).select([f.tags.ownerColumn, f.tags.valueColumn])
      .where(f.tags.ownerColumn, 'in', owners).execute()) as Record<string, unknown>[]
    await pause()
    for (const t of tagRows) {
      const record = byPk.get(Number(t[f.tags.ownerColumn]))
      if (!record) continue
      const list = (record[f.name] ??= []) as unknown[]
      list.push(t[f.tags.valueColumn])
    }
  }
  return records
}

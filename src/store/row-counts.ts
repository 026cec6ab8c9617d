/**
 * @module Row counts of dataset tables, and cheap query totals, remembered per database handle and
 * data version (`execute/counts.ts` fills both: plan steering's denominator, the match-all total,
 * totals not worth a cache write). Only sound
 * because every change of rows gets a new data version (ingest bumps it; `copy` sets a newer one):
 * another process's change is seen through the version alone. Kept here so `copy` can free them.
 */
import type { Kysely } from 'kysely'

const counts = new WeakMap<Kysely<any>, Map<string, number>>()
const totals = new WeakMap<Kysely<any>, Map<string, number>>()
const latest = new WeakMap<Kysely<any>, Map<string, number>>()
const probes = new WeakMap<Kysely<any>, Map<string, ProbedMatches>>()

/** Matches counted up to a bound: all of them when `counted < bound`. */
export interface ProbedMatches {
  readonly counted: number
  readonly bound: number
}

function mapOf(store: WeakMap<Kysely<any>, Map<string, number>>, db: Kysely<any>): Map<string, number> {
  let cache = store.get(db)
  if (!cache) store.set(db, (cache = new Map()))
  return cache
}

/** The remembered counts of `db`, keyed by data version and table. */
export function rememberedRowCounts(db: Kysely<any>): Map<string, number> {
  return mapOf(counts, db)
}

/**
 * The last row count of `table` counted on `db` at any data version (`execute/counts.ts` notes each
 * count here): the cost prediction (`check/cost.ts`) scales by it, and a count one ingest old
 * predicts time as well as a fresh one without a statement per request.
 */
export function latestRowCount(db: Kysely<any>, table: string): number | undefined {
  return latest.get(db)?.get(table)
}

export function noteLatestRowCount(db: Kysely<any>, table: string, rows: number): void {
  mapOf(latest, db).set(table, rows)
}

/**
 * Totals of queries kept in memory instead of `query_totals` because counting them again costs
 * less than writing them (`execute/counts.ts`, `cachedTotal`), keyed by data version and query id.
 */
export function rememberedTotals(db: Kysely<any>): Map<string, number> {
  return mapOf(totals, db)
}

/**
 * Matches of queries counted up to a bound (`execute/counts.ts`, `probedMatches`), keyed by data
 * version and query id: a page without its total steers by them again without a probe.
 */
export function rememberedProbes(db: Kysely<any>): Map<string, ProbedMatches> {
  let cache = probes.get(db)
  if (!cache) probes.set(db, (cache = new Map()))
  return cache
}

/** Forgets the totals and probed bounds kept in memory for `db` (benchmarks of first counts empty the cache this way too). */
export function forgetRememberedTotals(db: Kysely<any>): void {
  totals.delete(db)
  probes.delete(db)
}

/** Forgets every remembered count and total of `db` (its rows were replaced). */
export function forgetRowCounts(db: Kysely<any>): void {
  counts.delete(db)
  totals.delete(db)
  probes.delete(db)
  latest.delete(db)
}

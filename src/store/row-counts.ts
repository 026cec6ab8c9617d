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
 * Totals of queries kept in memory instead of `query_totals` because counting them again costs
 * less than writing them (`execute/counts.ts`, `cachedTotal`), keyed by data version and query id.
 */
export function rememberedTotals(db: Kysely<any>): Map<string, number> {
  return mapOf(totals, db)
}

/** Forgets the totals kept in memory for `db` (benchmarks of first counts empty the cache this way too). */
export function forgetRememberedTotals(db: Kysely<any>): void {
  totals.delete(db)
}

/** Forgets every remembered count and total of `db` (its rows were replaced). */
export function forgetRowCounts(db: Kysely<any>): void {
  counts.delete(db)
  totals.delete(db)
}

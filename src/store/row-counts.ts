/**
 * @module Row counts of dataset tables remembered per database handle and data version
 * (`execute/counts.ts` fills it: plan steering's denominator and the match-all total). Only sound
 * because every change of rows gets a new data version (ingest bumps it; `copy` sets a newer one):
 * another process's change is seen through the version alone. Kept here so `copy` can free them.
 */
import type { Kysely } from 'kysely'

const counts = new WeakMap<Kysely<any>, Map<string, number>>()

/** The remembered counts of `db`, keyed by data version and table. */
export function rememberedRowCounts(db: Kysely<any>): Map<string, number> {
  let cache = counts.get(db)
  if (!cache) counts.set(db, (cache = new Map()))
  return cache
}

/** Forgets every remembered count of `db` (its rows were replaced). */
export function forgetRowCounts(db: Kysely<any>): void {
  counts.delete(db)
}

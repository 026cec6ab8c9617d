/**
 * @module The phases of a load, in the order the loaders run them, with the share of the load's
 * time each takes: what `ventureql import` and `generate` show progress and estimates against.
 * The names are those `finish(onStep)` reports (the derivation's steps in materialise.ts, then the
 * loader's own); test/cli/progress.test.ts and test/postgres/ingest.test.ts fail when they drift.
 *
 * Weights are percentages of a whole load into an empty database, measured with `ventureql
 * generate` (SQLite: 50,000 companies on the shared 2-core machine, in line with the 1M breakdown
 * in src/store/README.md; PostgreSQL: the 1M figures of "Loading into PostgreSQL" there). They only
 * need to be roughly right: the estimate scales them by the time the load has really taken so far.
 */

/** The phase in which the records are read, decoded and written (units: companies or bytes). */
export const RECORDS_PHASE = 'records'

export interface LoadPhase {
  readonly name: string
  /** Share of the whole load's time (any scale: only ratios matter). */
  readonly weight: number
}

/** The derived data (materialiseSteps), the same steps on both backends. */
const DERIVED: readonly (readonly [string, number, number])[] = [
  // name, SQLite weight, PostgreSQL weight
  ['funding investors', 0.5, 1],
  ['funding events', 1, 2],
  ['investments', 4, 5],
  ['company funding', 3, 5],
  ['investor aggregates', 5, 6],
  ['investor industries', 4, 5],
]

/**
 * The phases of a load, in order. `rebuildsIndexes`: the load dropped the secondary indexes (a
 * load into an empty database) and rebuilds them at the end; otherwise that phase is next to
 * nothing (SQLite) or skipped (PostgreSQL), and writing the records costs more instead.
 */
export function loadPhases(dialect: 'sqlite' | 'postgres', options: { readonly rebuildsIndexes: boolean }): readonly LoadPhase[] {
  const phase = (name: string, weight: number): LoadPhase => Object.freeze({ name, weight })
  const indexes = options.rebuildsIndexes
  if (dialect === 'sqlite') {
    return Object.freeze([
      phase(RECORDS_PHASE, indexes ? 60 : 80),
      ...DERIVED.map(([name, w]) => phase(name, w)),
      phase('search index', 7),
      phase('indexes', indexes ? 20 : 0.5),
      phase('analyze', 0.5),
      // store/owner-integrity.ts: 4-5 s of a 200-340 s load at 1,000,000 companies.
      phase('integrity', 2),
    ])
  }
  return Object.freeze([
    phase(RECORDS_PHASE, indexes ? 33 : 60),
    ...DERIVED.map(([name, , w]) => phase(name, w)),
    ...(indexes ? [phase('indexes', 29)] : []),
    phase('integrity', 2),
    phase('analyze', 14),
    phase('search index', 10),
    phase('after load', 1),
  ])
}

/**
 * @module How many cases each property runs: a small default keeps `test/properties` well under a
 * minute on a 2-core machine; `FC_NUM_RUNS=1000 npx vitest run test/properties` digs deeper. The
 * exhaustive (field, operator) walk multiplies its runs by the number of pairs, so it reads its
 * own variable, `FC_PAIR_RUNS`.
 */
export function numRuns(base: number, variable: 'FC_NUM_RUNS' | 'FC_PAIR_RUNS' = 'FC_NUM_RUNS'): number {
  const env = Number(process.env[variable])
  return Number.isInteger(env) && env > 0 ? env : base
}

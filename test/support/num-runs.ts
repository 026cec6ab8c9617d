/**
 * @module How many cases each property runs: a small default keeps `test/properties` well under a
 * minute on a 2-core machine; `FC_NUM_RUNS=1000 npx vitest run test/properties` digs deeper.
 */
export function numRuns(base: number): number {
  const env = Number(process.env.FC_NUM_RUNS)
  return Number.isInteger(env) && env > 0 ? env : base
}

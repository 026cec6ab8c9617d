/**
 * @module The V8 heap setting of `ventureql serve`.
 *
 * V8 lets an isolate's old generation grow to a multiple of what survived the last full
 * collection before it collects again, and picks that multiple from how cheap collection has been:
 * up to 4x. A server's main thread is the case it handles worst. Request objects outlive a young
 * collection or two while their query runs, are promoted, and die in the old generation; with
 * collection cheap, V8 lets about 120 MB of them pile up over 28 MB of live data (`--trace-gc`
 * under the benchmark's mixed load at 1M companies: Mark-Compact 123.2 (153.8) -> 28.0 MB).
 *
 * A fixed factor of 2 (`--heap-growing-percent=100`) keeps that near twice the live data, lowering
 * peak memory under the mixed load without a throughput cost outside run-to-run spread
 * (`bench/serve-memory.ts` measures both). Smaller factors and `--optimize-for-size` saved more
 * memory and cost throughput.
 *
 * V8 flags are process-wide, so the setting covers the pool's worker threads too. It is set at
 * start, before the database is opened and the workers start. Node documents changing V8 flags after start as unsupported in
 * general; this one is read each time a limit is computed, and the measurement above is of it set
 * this way (`bench/serve-memory.ts`). An operator's own value wins: `node
 * --heap-growing-percent=N bin/ventureql.mjs serve` (0 is V8's default; NODE_OPTIONS does not take
 * this flag). Only the CLI server does this: a host that embeds the library keeps its own heap
 * settings.
 */
import v8 from 'node:v8'

export const SERVE_HEAP_GROWING_PERCENT = 100

/** Whether the operator set the factor already (a flag to node itself). */
export function heapGrowingSetByOperator(execArgv: readonly string[] = process.execArgv): boolean {
  return execArgv.some((arg) => /^--heap[-_]growing[-_]percent(=|$)/.test(arg))
}

/** Sets the serving factor unless the operator chose one. */
export function tuneHeapForServing(): void {
  if (!heapGrowingSetByOperator()) v8.setFlagsFromString(`--heap-growing-percent=${SERVE_HEAP_GROWING_PERCENT}`)
}

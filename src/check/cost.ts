/**
 * @module The static cost model of a filter: an estimate, from the checked tree alone, of the
 * plan's worst case per record of the queried dataset, in units of one condition tested on one
 * row. `rules/cost-within-limit.ts` holds it to the `maxCost` limit (grammar-docs/language.md,
 * "Limits"). It mirrors the plan `compile/relations.ts` builds, from the decisions both read in
 * `./foreign-plan.ts`:
 *
 * - a condition costs 1, a tags condition or a list too (SQLite answers them from a set it builds
 *   once from an index range of the values, not from a pass over a relation);
 * - `and`, `or` and `not` cost the sum of their children, so `or` width counts;
 * - a `foreign` compiled as a correlated probe costs `FAN_OUT * (VISIT + inner)`: it reaches every
 *   related row and tests the inner filter on it, and nothing guarantees an early stop (when
 *   nothing matches, every related row is reached); `all` is two probes;
 * - a `foreign` compiled as a set costs a lookup (`VISIT`) where it is probed and, once, a pass
 *   into a temporary index (`SET_PASS`) plus the inner filter tested once per related record; `all`
 *   is two sets.
 *
 * So a chain of nested `foreign` costs the sum of its levels; as correlated probes it cost their
 * product (`FAN_OUT` to the power of the depth), which is what froze a server (language.md,
 * "Foreign"). Merged siblings (`mergeForeignSiblings`) are costed as the one `foreign` they become.
 * The static estimate knows no data. `workOnData` runs the same walk on the data's shape (each
 * relation's related rows per record, from row counts): the worst case on that data.
 * `expectedWork` (at the end) runs it with the selectivity of each condition on a sample of the
 * data (`DataStatistics`, `execute/statistics.ts`), and `predictCost` turns either into
 * milliseconds; the pipeline reports the expected one and, when told to, holds it to the call's
 * budget (`execute/pipeline.ts`). The time budget remains the net for what the model cannot see. Measured on SQLite, one unit is 20-50 ns
 * per record (1,000,000 companies: a lone probe, 110 units, 4.3 s; an `or` of 499 conditions,
 * 499 units, about 10 s; a 5-level chain that every company meets, 1,240 units, 29 s).
 */
import type { ConditionNode, FilterNode } from '../ast/nodes.js'
import { childrenOf } from '../ast/visit.js'
import { datasets, findRelation, relations, resolveDataset } from '../catalog/index.js'
import type { DatasetName } from '../catalog/define.js'
import { mayProbe, mergeForeignSiblings, rootForeignCount } from './foreign-plan.js'

/**
 * Related rows per record assumed for every relation. The generated data has 1.5-3 investors and
 * funding events per company and 60-70 companies and funding events per investor; 10 weighs a
 * probe from either side, and is the growth per level measured on the chains (8-18x).
 */
export const FAN_OUT = 10

/**
 * Reaching a row through an index, or looking a key up in a temporary index, against testing a
 * condition on a row in hand: about 1 us against 0.07 us on SQLite (an `or` of 249 names tested on
 * each of 2.9 million investment rows took 55 s).
 */
export const VISIT = 10

/**
 * One set: a pass over a relation's related rows into a temporary index. On 1,000,000 companies a
 * broad set took 2.4 times the probe of the same rows (10.4 s against 4.3 s), so 2.5 probes.
 */
export const SET_PASS = 2.5 * FAN_OUT * VISIT

/**
 * The shape of the data a filter runs on, per record of the queried dataset: the static estimate
 * assumes `FAN_OUT` related rows everywhere (`STATIC_SHAPE`); the prediction on a database reads
 * it from the row counts (`shapeOf`).
 */
export interface DataShape {
  /** Related rows per record of `from` on the relation to `to` (what a probe reaches). */
  fanOut(from: string | undefined, to: string): number
  /** Rows of the relation from `from` to `to` per record of the queried dataset (what a set passes over). */
  setRows(from: string | undefined, to: string): number
  /** Records of `to` per record of the queried dataset (where a set tests its inner filter). */
  records(to: string): number
  /** What reaching one row costs against testing a condition: `VISIT`, or 0 to count condition tests alone. */
  readonly visit: number
}

export const STATIC_SHAPE: DataShape = Object.freeze({ fanOut: () => FAN_OUT, setRows: () => FAN_OUT, records: () => 1, visit: VISIT })

/** The tables whose row counts `shapeOf` reads: every dataset's and every link table. */
export const COST_TABLES: readonly string[] = Object.freeze([...new Set([
  ...Object.values(datasets).map((d) => d.table),
  ...relations.flatMap((r) => (r.kind === 'link' ? [r.table] : [])),
])])

/**
 * The data shape of a database from its row counts: `rows(table)` for each dataset's table and
 * each link table, `root` the queried dataset.
 */
export function shapeOf(rows: (table: string) => number, root: string, visit: number = VISIT): DataShape {
  const tableOf = (name: string) => resolveDataset(name)?.table ?? name
  const rootRows = Math.max(1, rows(tableOf(root)))
  // A link relation's rows are its link table's; a direct one's, those of its many side.
  const relationRows = (from: string | undefined, to: string): number => {
    const relation = from === undefined ? undefined : findRelation(from as DatasetName, to as DatasetName)
    if (relation === undefined) return rows(tableOf(to))
    if (relation.kind === 'link') return rows(relation.table)
    return Math.max(rows(tableOf(from!)), rows(tableOf(to)))
  }
  return Object.freeze({
    fanOut: (from: string | undefined, to: string) => Math.max(1, relationRows(from, to) / Math.max(1, rows(tableOf(from ?? root)))),
    setRows: (from: string | undefined, to: string) => relationRows(from, to) / rootRows,
    records: (to: string) => rows(tableOf(to)) / rootRows,
    visit,
  })
}

export interface CostEstimate {
  /** Worst-case row visits per record of the queried dataset, rounded up. */
  readonly total: number
  /**
   * The JSON Pointer of the node most of the cost comes from: followed down from the filter while
   * one child carries more than half of its parent's cost, stopping at a `foreign` (a chain is
   * reported at its top: every level adds to it).
   */
  readonly path: string
  /** The node at `path`, for the message. */
  readonly node: FilterNode
}

interface Costed {
  readonly node: FilterNode
  /** Visits per record where the node is evaluated. */
  readonly perRow: number
  /** Visits spent once, per record of the queried dataset (sets). */
  readonly once: number
  /** The children as they are costed (merged), each with what it adds to this node's cost. */
  readonly parts: readonly { readonly part: Costed; readonly adds: number }[]
}

const totalOf = (c: Costed): number => c.perRow + c.once

function costOf(node: FilterNode, nested: boolean, rootForeigns: number, dataset: string | undefined, shape: DataShape): Costed {
  switch (node.kind) {
    case 'MatchAll':
      return { node, perRow: 0, once: 0, parts: [] }
    case 'Condition':
      return { node, perRow: 1, once: 0, parts: [] }
    case 'Not': {
      const child = costOf(node.child, nested, rootForeigns, dataset, shape)
      return { node, perRow: child.perRow, once: child.once, parts: [{ part: child, adds: totalOf(child) }] }
    }
    case 'And':
    case 'Or': {
      const parts = mergeForeignSiblings(node.children, node.kind, node.path).map((c) => costOf(c, nested, rootForeigns, dataset, shape))
      return {
        node,
        perRow: parts.reduce((sum, p) => sum + p.perRow, 0),
        once: parts.reduce((sum, p) => sum + p.once, 0),
        parts: parts.map((p) => ({ part: p, adds: totalOf(p) })),
      }
    }
    case 'Foreign': {
      const inner = costOf(node.filter, true, rootForeigns, node.dataset, shape)
      const twice = node.match === 'all' ? 2 : 1
      const fan = shape.fanOut(dataset, node.dataset)
      if (!nested && mayProbe(node, resolveDataset(node.dataset), rootForeigns)) {
        // A correlated probe; `all` also probes for a related row at all (at most `fan` visits).
        const perRow = twice * fan * shape.visit + fan * inner.perRow
        return { node, perRow, once: inner.once, parts: [{ part: inner, adds: fan * inner.perRow + inner.once }] }
      }
      // A set: a pass over the relation's rows into a temporary index (2.5 probes of them: SET_PASS
      // when there are FAN_OUT per record), and the inner filter on each related record.
      const setPass = 2.5 * shape.visit * shape.setRows(dataset, node.dataset)
      const tests = inner.perRow * shape.records(node.dataset)
      return {
        node,
        perRow: twice * shape.visit,
        once: twice * setPass + tests + inner.once,
        parts: [{ part: inner, adds: tests + inner.once }],
      }
    }
  }
}

/**
 * The estimate for a whole filter over its dataset (the top-level `{}` costs nothing): with
 * `FAN_OUT` related rows per record on every relation unless `shape` says what the data holds
 * (then `dataset` names the filter's dataset, where the first relation starts).
 */
export function estimateCost(filter: FilterNode, shape: DataShape = STATIC_SHAPE, dataset?: string): CostEstimate {
  const root = costOf(filter, false, rootForeignCount(filter), dataset, shape)
  let at = root
  for (;;) {
    const whole = totalOf(at)
    const heavy = at.node.kind === 'Foreign' ? undefined : at.parts.find((p) => p.adds * 2 > whole)
    if (!heavy) break
    at = heavy.part
  }
  return Object.freeze({ total: Math.ceil(totalOf(root)), path: at.node.path, node: at.node })
}

/** What the node at a hotspot is, for a message. */
export function describeHotspot(node: FilterNode): string {
  switch (node.kind) {
    case 'Or':
      return `an \`or\` of ${node.children.length} alternatives`
    case 'And':
      return `an \`and\` of ${node.children.length} conditions`
    case 'Not':
      return 'a `not`'
    case 'Foreign': {
      const nested = foreignCount(node.filter)
      return nested > 0
        ? `a \`foreign\` on ${node.dataset} with ${nested} more \`foreign\` inside`
        : `a \`foreign\` on ${node.dataset} whose filter is tested on every related record`
    }
    case 'Condition':
      return `the condition on ${JSON.stringify(node.field)}`
    case 'MatchAll':
      return 'the whole filter'
  }
}

/** The number of `foreign` conditions in a subtree, at any depth. */
export function foreignCount(node: FilterNode): number {
  let n = 0
  const stack: FilterNode[] = [node]
  while (stack.length > 0) {
    const x = stack.pop() as FilterNode
    if (x.kind === 'Foreign') n++
    stack.push(...childrenOf(x))
  }
  return n
}

/** The backends a prediction is calibrated for (`VentureDb['dialect']`). */
export type CostBackend = 'sqlite' | 'postgres'

/**
 * The time model, per backend: a request's worst case is `baseMs` plus, per record of the queried
 * dataset, `scanNs` of that dataset (a pass over its records, counted, and page 1's records
 * assembled), `testNs` per condition test and `visitNs` per row reached through an index or a
 * temporary index, as the estimate counts them on the data's shape (`workOnData`). Each is the
 * largest the calibration corpus needed once the others are counted, so that the prediction bounds
 * every request it ran (120 requests at 100,000 companies, a 10 s budget):
 * `npx tsx bench/cost-calibration.ts` and `BENCH_BACKEND=postgres npx tsx bench/cost-calibration.ts`
 * print them. The largest visit costs come from `match: all` and `none` probes (SQLite: 4 us a
 * visit for companies whose every funding is tested; the median request needed 0.36 us).
 */
export const TIME_MODEL: Readonly<Record<CostBackend, TimeModel>> = Object.freeze({
  sqlite: Object.freeze({ baseMs: 5, scanNs: Object.freeze({ companies: 1800, investors: 24600, fundings: 800 }), testNs: 26, visitNs: 4000 }),
  // PostgreSQL's corpus left no time to condition tests beyond its scans (an `or` of 499 names ran
  // within the scan's figure); SQLite's per-test figure is kept as a floor.
  postgres: Object.freeze({ baseMs: 5, scanNs: Object.freeze({ companies: 5400, investors: 58800, fundings: 3800 }), testNs: 26, visitNs: 15500 }),
})

/**
 * The time model of the prediction on the data (`expectedWork`): the same terms as `TIME_MODEL`,
 * for the expected work rather than the worst case. SQLite's is fitted on the corpus at 100,000
 * and 1,000,000 companies together (`npx tsx bench/cost-calibration.ts` at each `BENCH_COMPANIES`,
 * then `BENCH_REFIT_COMPANIES=100000,1000000 npx tsx bench/cost-refit.ts`), with a fixed page cost
 * per dataset and the growth of the per-record cost with size, so that 99% of the requests it
 * accepts finish within the budget at each size on that corpus; PostgreSQL's on 100,000 only.
 */
export const EXPECTED_TIME_MODEL: Readonly<Record<CostBackend, TimeModel>> = Object.freeze({
  sqlite: Object.freeze({
    baseMs: 5, scanNs: Object.freeze({ companies: 5620, investors: 3824, fundings: 5627 }), testNs: 0.8, visitNs: 1268,
    pageMs: Object.freeze({ companies: 1, investors: 219, fundings: 131 }),
    growth: Object.freeze({ exponent: 0.105, fittedRows: Object.freeze({ companies: 100_000, investors: 5000, fundings: 151_026 }) }),
  }),
  postgres: Object.freeze({ baseMs: 5, scanNs: Object.freeze({ companies: 27162, investors: 552554, fundings: 15120 }), testNs: 62.7, visitNs: 4038 }),
})

export interface TimeModel {
  readonly baseMs: number
  /** Per record of the queried dataset, by dataset name. */
  readonly scanNs: Readonly<Record<string, number>>
  readonly testNs: number
  /** Per row reached (one visit is `VISIT` units of the estimate). */
  readonly visitNs: number
  /**
   * How the per-record cost grows with the records of the queried dataset beyond those it was
   * fitted at (`fittedRows`, by dataset): times (rows / fittedRows) ^ `exponent`, never less than
   * 1. Deeper b-trees and a working set that leaves the CPU's caches make a visit dearer on a larger
   * database; fitted on the corpus at two sizes (`bench/cost-refit.ts`).
   */
  readonly growth?: { readonly exponent: number; readonly fittedRows: Readonly<Record<string, number>> }
  /**
   * Milliseconds a filtered request of a dataset pays whatever its size, by dataset name: page 1's
   * records assembled (an investor's carries aggregates over its portfolio) and the statements'
   * fixed costs. Fitted apart from `scanNs` on the corpus at two sizes; absent, 0.
   */
  readonly pageMs?: Readonly<Record<string, number>>
}

/** The cost of a request on the data it runs on. */
export interface PredictedCost {
  /** `estimateCost(...).total`: units per record of the queried dataset, as held to `maxCost`. */
  readonly units: number
  /** Records of the queried dataset the prediction is for. */
  readonly rows: number
  /** Predicted milliseconds of the count and page 1, rounded up (`EXPECTED_TIME_MODEL` on the data's statistics where the engine reports it). */
  readonly ms: number
}

/** Condition tests and row visits per record of the queried dataset, on the data's shape. */
export interface WorkOnData {
  readonly tests: number
  readonly visits: number
  /** The fraction of the queried dataset's records the plan passes over (1 unless an index narrows it). */
  readonly scan?: number
}

/** `WorkOnData` of a filter over `dataset`, whose tables hold `rows(table)` rows (`COST_TABLES`). */
export function workOnData(filter: FilterNode, dataset: string, rows: (table: string) => number): WorkOnData {
  let tests = estimateCost(filter, shapeOf(rows, dataset, 0), dataset).total
  let all = estimateCost(filter, shapeOf(rows, dataset, 1), dataset).total
  if (filter.kind === 'Foreign' && filter.match === 'none') {
    // Counted as the rows less its `any` as a set (`expectedWork`): that set too.
    const set = (visit: number) => totalOf(costOf({ ...filter, match: 'any' }, true, 1, dataset, shapeOf(rows, dataset, visit)))
    tests += set(0)
    all += set(1)
  }
  return { tests, visits: Math.max(0, all - tests) }
}

/**
 * The prediction for a filter of `units` (static estimate) doing `work` per record over `rows`
 * records of `dataset` on `backend` (`TIME_MODEL`). A match-all filter (no work) is answered from the table's
 * row count and the sort's index: `baseMs`.
 */
export function predictCost(units: number, work: WorkOnData, rows: number, backend: CostBackend, dataset: string, model: TimeModel = TIME_MODEL[backend]): PredictedCost {
  const none = work.tests === 0 && work.visits === 0
  const scan = (model.scanNs[dataset] ?? Math.max(...Object.values(model.scanNs))) * (work.scan ?? 1)
  const fitted = model.growth?.fittedRows[dataset]
  const growth = model.growth && fitted ? Math.max(1, (rows / fitted) ** model.growth.exponent) : 1
  const perRecordNs = none ? 0 : growth * (scan + work.tests * model.testNs + work.visits * model.visitNs)
  const pageMs = none ? 0 : model.pageMs?.[dataset] ?? 0
  return Object.freeze({ units, rows, ms: Math.ceil(model.baseMs + pageMs + (rows * perRecordNs) / 1e6) })
}


/**
 * What the prediction knows of the data beyond its shape (`execute/statistics.ts` reads it once
 * per data version): row counts, and the selectivity of a condition, the fraction of a dataset's
 * records it holds for, estimated on a fixed sample of `sampled(dataset)` records.
 */
export interface DataStatistics {
  rows(table: string): number
  sampled(dataset: string): number
  selectivity(node: ConditionNode, dataset: string): number | undefined
}

/** Operators an index on the field can answer (a range or a few points of it). */
const INDEXABLE = new Set(['eq', 'in', 'between', 'gt', 'gte', 'lt', 'lte'])

interface Expected {
  /** The fraction of the records where the node is evaluated that it holds for. */
  readonly s: number
  /** Condition tests and rows reached per evaluation. */
  readonly tests: number
  readonly visits: number
  /** Spent once per record of the queried dataset (sets), whatever evaluates the node. */
  readonly onceTests: number
  readonly onceVisits: number
  /**
   * Evaluated as a whole filter of its dataset, the fraction of the records an index or a set
   * lets the plan read (1: every record), and what the driving part costs per record, which the
   * records it skips do not pay.
   */
  readonly drive: number
  readonly driverTests: number
  readonly driverVisits: number
}

const hasForeign = (node: FilterNode): boolean => foreignCount(node) > 0
const UNDRIVEN = { drive: 1, driverTests: 0, driverVisits: 0 } as const

/**
 * The expected work of a filter on the data (`expectedWork`): the walk of `costOf` with each
 * condition's selectivity from the statistics instead of the worst case. An `and` stops at its
 * first false child and an `or` at its first true one, conditions before `foreign` (both
 * backends test the terms without a subquery first), and an `and` starts from its most selective
 * part an index (an indexed condition) or a set (a `foreign` with `any`) can read directly; a
 * correlated probe stops at the first related row that decides it (geometric in the inner filter's
 * selectivity, at most the fan-out); a set reads the records of its dataset its inner filter can
 * drive to, tests the inner filter on them, and passes over the relation's rows of the records it
 * keeps. Children are taken as independent.
 */
function expectedOf(node: FilterNode, nested: boolean, rootForeigns: number, dataset: string, shape: DataShape, stats: DataStatistics): Expected {
  const eps = 0.5 / Math.max(1, stats.sampled(dataset))
  const clamp = (s: number) => Math.min(1 - eps, Math.max(eps, s))
  switch (node.kind) {
    case 'MatchAll':
      return { s: 1, tests: 0, visits: 0, onceTests: 0, onceVisits: 0, ...UNDRIVEN }
    case 'Condition': {
      const s = clamp(stats.selectivity(node, dataset) ?? 0.5)
      return { s, tests: 1, visits: 0, onceTests: 0, onceVisits: 0, ...(indexable(node, dataset) ? { drive: s, driverTests: 1, driverVisits: 0 } : UNDRIVEN) }
    }
    case 'Not': {
      const child = expectedOf(node.child, nested, rootForeigns, dataset, shape, stats)
      return { ...child, s: 1 - child.s, ...UNDRIVEN }
    }
    case 'And':
    case 'Or': {
      const parts = childOrder(mergeForeignSiblings(node.children, node.kind, node.path)).map((c) => expectedOf(c, nested, rootForeigns, dataset, shape, stats))
      let driven: Pick<Expected, 'drive' | 'driverTests' | 'driverVisits'> = UNDRIVEN
      if (node.kind === 'And') {
        let driver = -1
        parts.forEach((p, i) => { if (p.drive < 1 && (driver < 0 || p.drive < parts[driver]!.drive)) driver = i })
        if (driver >= 0) {
          const [d] = parts.splice(driver, 1)
          parts.unshift(d!)
          driven = { drive: d!.drive, driverTests: d!.tests, driverVisits: d!.visits }
        }
      }
      let reach = 1
      let tests = 0, visits = 0, onceTests = 0, onceVisits = 0
      for (const p of parts) {
        tests += reach * p.tests
        visits += reach * p.visits
        onceTests += p.onceTests
        onceVisits += p.onceVisits
        reach *= node.kind === 'And' ? p.s : 1 - p.s
      }
      return { s: node.kind === 'And' ? reach : 1 - reach, tests, visits, onceTests, onceVisits, ...driven }
    }
    case 'Foreign': {
      const to = resolveDataset(node.dataset)?.name ?? node.dataset
      const inner = expectedOf(node.filter, true, rootForeigns, to, shape, stats)
      const fan = shape.fanOut(dataset, to)
      const innerEps = 0.5 / Math.max(1, stats.sampled(to))
      const si = Math.min(1 - innerEps, Math.max(innerEps, inner.s))
      const anyHolds = 1 - (1 - si) ** fan
      const s = clamp(node.match === 'any' ? anyHolds : node.match === 'none' ? 1 - anyHolds : si ** fan)
      if (!nested && mayProbe(node, resolveDataset(node.dataset), rootForeigns)) {
        // Rows reached until one decides: a match for `any`/`none`, a miss for `all` (which also probes for one row).
        const reach = node.match === 'all' ? Math.min(fan, (1 - si ** fan) / (1 - si)) : Math.min(fan, anyHolds / si)
        const tests = reach * inner.tests
        const visits = reach * (1 + inner.visits) + (node.match === 'all' ? 1 : 0)
        // An `any` whose inner filter selects few related records is run from them (a semi-join): it drives.
        const driven = node.match === 'any' && inner.drive < 1 ? { drive: s, driverTests: tests, driverVisits: visits } : UNDRIVEN
        return { s, tests, visits, onceTests: inner.onceTests, onceVisits: inner.onceVisits, ...driven }
      }
      // A set: the inner filter on the records of its dataset it drives to, then the relation's
      // rows of the records it keeps (of those it fails too for `all`, which also passes over
      // every row once). An `any` set can drive its parent: its members are keys.
      // Per record of `to`: the inner filter's work, less its driving part on the records it skips.
      const saved = 1 - inner.drive
      const innerTests = Math.max(0, inner.tests - saved * inner.driverTests)
      const innerVisits = Math.max(0, inner.visits - saved * inner.driverVisits)
      const kept = node.match === 'all' ? 2 - si : si
      const lookups = node.match === 'all' ? 2 : 1
      return {
        s,
        tests: 0,
        visits: lookups,
        onceTests: shape.records(to) * innerTests + inner.onceTests,
        onceVisits: shape.records(to) * innerVisits + inner.onceVisits + 2.5 * shape.setRows(dataset, to) * kept,
        ...(node.match === 'any' ? { drive: s, driverTests: 0, driverVisits: lookups } : UNDRIVEN),
      }
    }
  }
}

/** Whether an index can answer a condition: an indexed field, and a range or a few points of it. */
function indexable(node: FilterNode, dataset: string): node is ConditionNode {
  return node.kind === 'Condition' && INDEXABLE.has(node.operator) && resolveDataset(dataset)?.fields[node.field]?.indexed === true
}

/** The order `expectedOf` costs an `and`'s children in: conditions before `foreign`. */
function childOrder(children: readonly FilterNode[]): readonly FilterNode[] {
  return [...children.filter((c) => !hasForeign(c)), ...children.filter(hasForeign)]
}

/**
 * `WorkOnData` of a filter over `dataset` expected on the data the statistics describe: condition
 * tests and rows reached per record of the queried dataset, and the fraction of its records the
 * plan passes over (an index or a set narrows it). At most `workOnData`'s worst case on the same
 * row counts.
 */
export function expectedWork(filter: FilterNode, dataset: string, stats: DataStatistics): WorkOnData {
  if (filter.kind === 'MatchAll') return { tests: 0, visits: 0, scan: 0 }
  const name = resolveDataset(dataset)?.name ?? dataset
  const shape = shapeOf((t) => stats.rows(t), name, 1)
  const sampled = sampledAtMost(stats, MAX_SAMPLED_CONDITIONS)
  const e = expectedOf(filter, false, rootForeignCount(filter), name, shape, sampled)
  const whole = workOf(e)
  if (filter.kind !== 'Foreign' || filter.match !== 'none') return whole
  // A top-level `none` is counted as the table's rows less its `any` as a set (`complementCount`,
  // compile/plan.ts), and page 1 probes records in sort order until it has a page of matches.
  const any = workOf(expectedOf({ ...filter, match: 'any' }, true, 1, name, shape, sampled))
  const records = Math.max(1, stats.rows(resolveDataset(name)?.table ?? name))
  const paged = Math.min(1, PAGE_RECORDS / Math.max(0.5, e.s * records))
  return {
    tests: any.tests + paged * whole.tests,
    visits: any.visits + paged * whole.visits,
    scan: Math.min(1, (any.scan ?? 1) + paged),
  }
}

/** Records on page 1 (`maxPerPage`), which a probe in sort order stops after. */
const PAGE_RECORDS = 50

function workOf(e: Expected): WorkOnData {
  const saved = 1 - e.drive
  return {
    tests: Math.max(0, e.tests - saved * e.driverTests) + e.onceTests,
    visits: Math.max(0, e.visits - saved * e.driverVisits) + e.onceVisits,
    scan: e.drive,
  }
}

/**
 * The conditions of one filter whose selectivity is measured on the sample, in the order the walk
 * meets them; the others count as holding for half the records. Measuring one takes 0.1-1 ms on
 * the sample, so a wide `or` seen for the first time costs at most a few tens of milliseconds, and
 * the prediction depends on the request alone (not on what was measured before).
 */
export const MAX_SAMPLED_CONDITIONS = 64

function sampledAtMost(stats: DataStatistics, max: number): DataStatistics {
  const measured = new Set<ConditionNode>()
  return {
    rows: (table) => stats.rows(table),
    sampled: (dataset) => stats.sampled(dataset),
    selectivity(node, dataset) {
      if (!measured.has(node)) {
        if (measured.size >= max) return undefined
        measured.add(node)
      }
      return stats.selectivity(node, dataset)
    },
  }
}

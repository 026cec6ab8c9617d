/**
 * @module The conformance harness: the laws of the filter language (grammar-docs/language.md)
 * run as fast-check properties against any implementation that answers a query with a page of
 * primary keys and a total. Each law generates filters from the data the implementation serves
 * (a `Snapshot` of it), so they select some but not all rows, and compares what the
 * implementation answers with the reference evaluator or with its own answers to an equivalent
 * query. A law that fails is reported with fast-check's shrunk counterexample.
 */
import fc from 'fast-check'
import type { DatasetName } from '../catalog/define.js'
import { DATASET_NAMES, datasets, FOREIGN_MATCH_MODES, relations } from '../catalog/index.js'
import type { CheckedQuery } from '../check/checked.js'
import { checkQuery } from '../check/index.js'
import { resolveLimits } from '../check/limits.js'
import { formatIssues } from '../errors/format.js'
import { parseQuery } from '../parse/index.js'
import { referenceRows, type Snapshot } from '../reference/index.js'
import { filterArbitraries, permuteFilter, prng, type FilterArbitraries, type FilterJson, type SortJson } from './arbitraries.js'

/** What the harness asks: a request as `engine.query` and POST /queries take it, always with a page. */
export interface ConformanceQuery {
  /** The dataset's canonical name. */
  readonly dataset: DatasetName
  /** A filter the checker accepts, in the spellings a client may send (`{}`: every record). */
  readonly filter: FilterJson
  /** Sort clauses; absent: the dataset's default order. Ties are broken by the primary key, ascending. */
  readonly sort?: SortJson
  /** 1-based. */
  readonly page: number
  /** Records a page holds; at most `ConformanceOptions.maxPerPage`. */
  readonly per_page: number
}

/** What the implementation answers: the primary keys of the page's records, in order, and how many records match in all. */
export interface ConformanceAnswer {
  /** Primary keys, as numbers or integer strings (as some datasets serialise them). */
  readonly ids: readonly (number | string)[]
  /** How many records match the filter in all pages. */
  readonly total: number
}

/** The implementation under test. */
export interface ConformanceTarget {
  run(query: ConformanceQuery): Promise<ConformanceAnswer>
}

/** The laws, in the order they run. */
export const CONFORMANCE_LAWS = Object.freeze(['reference', 'complement', 'commutativity', 'paging', 'foreign'] as const)
/** One of `CONFORMANCE_LAWS`. */
export type ConformanceLaw = (typeof CONFORMANCE_LAWS)[number]

/** What `checkConformance` runs, and on what data. */
export interface ConformanceOptions {
  /** The data the implementation serves, read with `loadSnapshot` (or built with `createSnapshot`). */
  readonly snapshot: Snapshot
  /** Cases per law (default 40). */
  readonly numRuns?: number
  /** fast-check seed, to replay a reported failure (its report prints the seed and path). */
  readonly seed?: number
  /** With `seed`: the path of the failure to replay, as its report prints it. */
  readonly path?: string
  /** Which laws to run (default all of `CONFORMANCE_LAWS`). */
  readonly laws?: readonly ConformanceLaw[]
  /** Which datasets queries go to (default every dataset). */
  readonly datasets?: readonly DatasetName[]
  /** The largest `per_page` the implementation accepts (default 100,000). */
  readonly maxPerPage?: number
  /** Deepest nesting of generated filters (default 3). */
  readonly depth?: number
  /** Whether values come in every spelling the language accepts (default true). */
  readonly sugar?: boolean
}

/** How one law ran. */
export interface LawOutcome {
  readonly law: ConformanceLaw
  readonly runs: number
  /** Generated filters that matched some but not all records of their dataset (by the reference evaluator). */
  readonly partial: number
}

/** What a passing `checkConformance` resolves to. */
export interface ConformanceReport {
  readonly laws: readonly LawOutcome[]
  /** Share of all generated filters that matched some but not all records. */
  readonly partialShare: number
}

/** A law that failed, with fast-check's report. */
export interface ConformanceFailure {
  readonly law: ConformanceLaw
  /** fast-check's report: seed, path, the shrunk counterexample and the error it raised. */
  readonly message: string
  /** The failing case as simplified after shrinking: the query or queries the law generated. */
  readonly counterexample: unknown
  /** The case as fast-check shrank it (its report shows this one; `seed` and `path` replay it). */
  readonly shrunk: unknown
  /** Replays the run with `ConformanceOptions.seed` and `path`. */
  readonly seed: number
  readonly path: string
}

/** Thrown by `checkConformance` when a law fails; `failures` holds one entry per failed law. */
export class ConformanceError extends Error {
  override readonly name = 'ConformanceError'
  constructor(readonly failures: readonly ConformanceFailure[], readonly report: ConformanceReport) {
    super(`${failures.length} of ${report.laws.length} conformance laws failed:\n\n${failures.map((f) => `law "${f.law}": ${f.message}`).join('\n\n')}`)
  }
}

type Note = (dataset: DatasetName, matched: number) => void

/**
 * A law: a generated case and a predicate that throws an Error saying what differed. `note`
 * counts the filters the run generated (it is not called while simplifying a failure).
 */
interface Law {
  readonly arbitrary: fc.Arbitrary<object>
  readonly predicate: (value: never, note: Note) => Promise<void>
}

function law<T extends object>(arbitrary: fc.Arbitrary<T>, predicate: (value: T, note: Note) => Promise<void>): Law {
  return { arbitrary, predicate: predicate as Law['predicate'] }
}

/** Errors of the harness itself (a candidate the checker refuses), which never count as a failure of the target. */
class HarnessError extends Error {}

/**
 * Runs a law with fast-check; a failure is then simplified further (`simplify`), because the
 * arbitraries are built with `chain`, which fast-check shrinks only part of the way.
 */
async function runLaw(law: Law, note: Note, parameters: fc.Parameters<[object]>): Promise<Omit<ConformanceFailure, 'law'> | undefined> {
  const property = fc.asyncProperty(law.arbitrary, (value) => law.predicate(value as never, note))
  const details = await fc.check(property, { ...parameters, includeErrorInReport: true })
  if (!details.failed) return undefined
  const message = fc.defaultReportMessage(details) ?? 'the property failed'
  if (details.counterexample === null) return { message, counterexample: undefined, shrunk: undefined, seed: details.seed, path: details.counterexamplePath ?? '' }
  const shrunk = details.counterexample[0]
  const simplest = await simplify(shrunk, async (candidate) => law.predicate(candidate as never, () => undefined))
  return {
    message: simplest.value === shrunk ? message : `${message}\n\nSimplified counterexample (parts of the filter and sort taken away while the law still fails):\n${JSON.stringify(simplest.value)}\nGot error: ${simplest.error}`,
    counterexample: simplest.value,
    shrunk,
    seed: details.seed,
    path: details.counterexamplePath ?? '',
  }
}

const NO_LIMITS = resolveLimits({ maxPerPage: Number.MAX_SAFE_INTEGER, maxCost: Number.MAX_SAFE_INTEGER })

/**
 * Runs the laws against `target`, resolving to how many cases each ran and how many of the
 * generated filters were non-trivial; rejects with a `ConformanceError` naming every law that
 * failed, each with fast-check's report of the shrunk counterexample. An answer of the wrong shape
 * (ids that are not integers, a total that is not a count) fails the law that asked.
 *
 * - `reference`: the first page and the total equal the reference evaluator's;
 * - `complement`: count(P) + count(not P) = count(all), and the two sets of records are disjoint;
 * - `commutativity`: `and`/`or` children, hash keys and value lists in any order, regrouped or
 *   with repeats, select the same records in the same order;
 * - `paging`: walking every page returns each record of the whole answer once, in order, and the
 *   page after the last is empty;
 * - `foreign`: `none` is the complement of `any`, and `all` of a filter is `any` related record
 *   and `none` that fails it; each mode equals the reference evaluator.
 */
export async function checkConformance(target: ConformanceTarget, options: ConformanceOptions): Promise<ConformanceReport> {
  if (typeof target?.run !== 'function') throw new TypeError('checkConformance: expected a target {run(query) => Promise<{ids, total}>}, got no run function')
  const snapshot = options?.snapshot
  if (!snapshot?.datasets) throw new TypeError('checkConformance: options.snapshot: expected a Snapshot (loadSnapshot(database)), got none')
  const laws = options.laws ?? CONFORMANCE_LAWS
  for (const law of laws) if (!CONFORMANCE_LAWS.includes(law)) throw new TypeError(`checkConformance: laws: expected names from ${CONFORMANCE_LAWS.join(', ')}, got ${JSON.stringify(law)}`)
  const only = options.datasets ?? DATASET_NAMES
  for (const ds of only) if (!DATASET_NAMES.includes(ds)) throw new TypeError(`checkConformance: datasets: expected names from ${DATASET_NAMES.join(', ')}, got ${JSON.stringify(ds)}`)
  const usable = only.filter((ds) => snapshot.datasets[ds].ids.length > 0)
  if (usable.length === 0) throw new TypeError('checkConformance: the snapshot holds no records of the datasets asked for')
  const maxPerPage = options.maxPerPage ?? 100_000
  if (!Number.isInteger(maxPerPage) || maxPerPage < 1) throw new TypeError(`checkConformance: maxPerPage: expected a positive integer, got ${JSON.stringify(maxPerPage)}`)

  const arbs = filterArbitraries(snapshot, { maxDepth: options.depth ?? 3, ...(options.sugar !== undefined ? { sugar: options.sugar, compactDates: options.sugar } : {}) })
  const ctx: LawContext = { target, snapshot, arbs, datasets: usable, maxPerPage }
  const outcomes: LawOutcome[] = []
  const failures: ConformanceFailure[] = []
  for (const name of laws) {
    let runs = 0
    let partial = 0
    const note = (dataset: DatasetName, matched: number): void => {
      runs++
      if (matched > 0 && matched < snapshot.datasets[dataset].ids.length) partial++
    }
    const failure = await runLaw(LAWS[name](ctx), note, {
      numRuns: options.numRuns ?? 40,
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
      ...(options.path !== undefined ? { path: options.path } : {}),
    })
    outcomes.push({ law: name, runs, partial })
    if (failure) failures.push({ law: name, ...failure })
  }
  const runs = outcomes.reduce((sum, o) => sum + o.runs, 0)
  const report: ConformanceReport = { laws: outcomes, partialShare: runs === 0 ? 0 : outcomes.reduce((sum, o) => sum + o.partial, 0) / runs }
  if (failures.length > 0) throw new ConformanceError(failures, report)
  return report
}

//// the laws ////

interface LawContext {
  readonly target: ConformanceTarget
  readonly snapshot: Snapshot
  readonly arbs: FilterArbitraries
  readonly datasets: readonly DatasetName[]
  readonly maxPerPage: number
}

interface Generated {
  readonly dataset: DatasetName
  readonly filter: FilterJson
  readonly sort: SortJson
}

function generated(ctx: LawContext, datasetsFrom: readonly DatasetName[] = ctx.datasets): fc.Arbitrary<Generated> {
  return fc.constantFrom(...datasetsFrom).chain((dataset) => fc.record({ dataset: fc.constant(dataset), filter: ctx.arbs.filter(dataset), sort: ctx.arbs.sort(dataset) }))
}

/** The reference evaluator's rows for a generated request (which the checker must accept). */
function expectedRows(ctx: LawContext, dataset: DatasetName, filter: FilterJson, sort: SortJson = []): number[] {
  const query = checked({ dataset, filter, sort })
  return referenceRows(query.filter, query.dataset, query.sort, ctx.snapshot)
}

function checked(request: object): CheckedQuery {
  const parsed = parseQuery(request, NO_LIMITS)
  if (!parsed.ok) throw new HarnessError(`generated request does not parse (a bug of ventureql/testing): ${formatIssues(parsed.issues)}`)
  const result = checkQuery(parsed.value, NO_LIMITS)
  if (!result.ok) throw new HarnessError(`generated request does not check (a bug of ventureql/testing): ${formatIssues(result.issues)}`)
  return result.value
}

const rowCount = (ctx: LawContext, dataset: DatasetName): number => ctx.snapshot.datasets[dataset].ids.length
const sortPart = (sort: SortJson | undefined): { sort?: SortJson } => (sort && sort.length > 0 ? { sort } : {})

/** Asks the target, and checks the answer's shape: ids as integers, a total that counts records. */
async function ask(ctx: LawContext, query: ConformanceQuery): Promise<{ ids: number[]; total: number }> {
  const answer = await ctx.target.run(query)
  const where = `the answer to ${JSON.stringify(query)}`
  if (typeof answer !== 'object' || answer === null || !Array.isArray(answer.ids)) throw new Error(`${where}: expected {ids: [...], total}, got ${JSON.stringify(answer)}`)
  const ids = answer.ids.map((id) => (typeof id === 'string' && /^-?\d+$/.test(id) ? Number(id) : id))
  const bad = ids.findIndex((id) => typeof id !== 'number' || !Number.isSafeInteger(id))
  if (bad >= 0) throw new Error(`${where}: ids[${bad}]: expected an integer primary key, got ${JSON.stringify(answer.ids[bad])}`)
  if (typeof answer.total !== 'number' || !Number.isSafeInteger(answer.total) || answer.total < 0) throw new Error(`${where}: total: expected a count of records, got ${JSON.stringify(answer.total)}`)
  return { ids: ids as number[], total: answer.total }
}

/** The whole answer on one page, as far as the target's page size allows. */
function firstPage(ctx: LawContext, dataset: DatasetName, filter: FilterJson, sort?: SortJson): ConformanceQuery {
  return { dataset, filter, ...sortPart(sort), page: 1, per_page: Math.min(ctx.maxPerPage, Math.max(1, rowCount(ctx, dataset))) }
}

/** Fails with both lists and where they first differ. */
function sameIds(what: string, expected: readonly number[], got: readonly number[]): void {
  if (expected.length === got.length && expected.every((id, i) => id === got[i])) return
  let at = 0
  while (at < expected.length && at < got.length && expected[at] === got[at]) at++
  const missing = expected.filter((id) => !got.includes(id))
  const extra = got.filter((id) => !expected.includes(id))
  throw new Error(`${what}: expected ${expected.length} ids ${preview(expected)}, got ${got.length} ${preview(got)}; first difference at index ${at}`
    + `${missing.length ? `; missing ${preview(missing)}` : ''}${extra.length ? `; unexpected ${preview(extra)}` : ''}`
    + `${!missing.length && !extra.length ? '; same ids in another order' : ''}`)
}

function sameNumber(what: string, expected: number, got: number): void {
  if (expected !== got) throw new Error(`${what}: expected ${expected}, got ${got}`)
}

const preview = (ids: readonly number[]): string => `[${ids.slice(0, 12).join(', ')}${ids.length > 12 ? `, … ${ids.length - 12} more` : ''}]`

const LAWS: Readonly<Record<ConformanceLaw, (ctx: LawContext) => Law>> = {
  reference: (ctx) => ({
    ...law(generated(ctx), async ({ dataset, filter, sort }, note) => {
      const expected = expectedRows(ctx, dataset, filter, sort)
      note(dataset, expected.length)
      const query = firstPage(ctx, dataset, filter, sort)
      const answer = await ask(ctx, query)
      sameNumber('total (the reference evaluator\'s count)', expected.length, answer.total)
      sameIds('ids of page 1 (the reference evaluator\'s, in order)', expected.slice(0, query.per_page), answer.ids)
    }),
  }),

  complement: (ctx) => ({
    ...law(generated(ctx), async ({ dataset, filter }, note) => {
      note(dataset, expectedRows(ctx, dataset, filter).length)
      const all = await ask(ctx, firstPage(ctx, dataset, {}))
      const yes = await ask(ctx, firstPage(ctx, dataset, filter))
      const no = await ask(ctx, firstPage(ctx, dataset, { not: filter }))
      if (yes.total + no.total !== all.total) {
        throw new Error(`count(P) + count(not P) = count(all) does not hold: count(P) = ${yes.total}, count(not P) = ${no.total}, their sum ${yes.total + no.total}, count(all) = ${all.total}`)
      }
      if (all.total <= ctx.maxPerPage) {
        const both = yes.ids.filter((id) => no.ids.includes(id))
        if (both.length > 0) throw new Error(`P and not P both select ${preview(both)}`)
        sameIds('the records of P and of not P together (every record once)', [...all.ids].sort((a, b) => a - b), [...yes.ids, ...no.ids].sort((a, b) => a - b))
      }
    }),
  }),

  commutativity: (ctx) => ({
    ...law(
      fc.constantFrom(...ctx.datasets).chain((dataset) => fc.record({
        dataset: fc.constant(dataset), p: ctx.arbs.filter(dataset), q: ctx.arbs.filter(dataset), sort: ctx.arbs.sort(dataset), seed: fc.integer(),
      })),
      async ({ dataset, p, q, sort, seed }, note) => {
        note(dataset, expectedRows(ctx, dataset, p).length)
        const random = prng(seed)
        const pairs: Array<[string, FilterJson, FilterJson]> = [
          ['{and: [P, Q]} against {and: [Q, P]}', { and: [p, q] }, { and: [q, p] }],
          ['{or: [P, Q]} against {or: [Q, P]}', { or: [p, q] }, { or: [q, p] }],
          ['P against P with keys and lists reordered, regrouped or repeated', p, regroup(permuteFilter(p, random) as FilterJson, random)],
        ]
        for (const [what, a, b] of pairs) {
          const one = await ask(ctx, firstPage(ctx, dataset, a, sort))
          const other = await ask(ctx, firstPage(ctx, dataset, b, sort))
          sameNumber(`${what}: total`, one.total, other.total)
          sameIds(`${what}: ids of page 1`, one.ids, other.ids)
        }
      }),
  }),

  paging: (ctx) => ({
    ...law(generated(ctx).chain((g) => fc.integer({ min: 1, max: 25 }).map((size) => ({ ...g, size }))), async ({ dataset, filter, sort, size }, note) => {
      const expectedCount = expectedRows(ctx, dataset, filter, sort).length
      note(dataset, expectedCount)
      // At most 20 pages a walk, whatever the share of records the filter selects.
      const perPage = Math.min(ctx.maxPerPage, Math.max(size, Math.ceil(expectedCount / 20)))
      const whole = await ask(ctx, firstPage(ctx, dataset, filter, sort))
      // The target's own answer on one page when it fits, else the reference's: this law is about paging.
      const expected = whole.total <= ctx.maxPerPage ? whole.ids : expectedRows(ctx, dataset, filter, sort)
      const pages = Math.ceil(whole.total / perPage)
      const walked: number[] = []
      for (let page = 1; page <= pages + 1; page++) {
        const answer = await ask(ctx, { dataset, filter, ...sortPart(sort), page, per_page: perPage })
        sameNumber(`total of page ${page} at per_page ${perPage}`, whole.total, answer.total)
        const want = page <= pages ? Math.min(perPage, whole.total - (page - 1) * perPage) : 0
        if (answer.ids.length !== want) {
          throw new Error(`page ${page} of ${pages} at per_page ${perPage} (total ${whole.total}): expected ${want} records, got ${answer.ids.length} ${preview(answer.ids)}`)
        }
        walked.push(...answer.ids)
      }
      const seen = new Set<number>()
      const twice = walked.filter((id) => (seen.has(id) ? true : (seen.add(id), false)))
      if (twice.length > 0) throw new Error(`walking every page at per_page ${perPage} returned ${preview(twice)} more than once`)
      sameIds(`every page at per_page ${perPage}, in order (the whole answer on one page)`, expected, walked)
    }),
  }),

  foreign: (ctx) => {
    const pairs = relations.filter((r) => ctx.datasets.includes(r.from) && rowCount(ctx, r.to) > 0).map((r) => [r.from, r.to] as const)
    if (pairs.length === 0) throw new TypeError('checkConformance: the foreign law needs a dataset related to one the snapshot holds records of')
    const arb = fc.constantFrom(...pairs).chain(([dataset, to]) =>
      fc.record({ dataset: fc.constant(dataset), to: fc.constant(to), inner: ctx.arbs.filter(to), sort: ctx.arbs.sort(dataset) }))
    return {
      ...law(arb, async ({ dataset, to, inner, sort }, note) => {
        const foreign = (filter: FilterJson, match: string): FilterJson => ({ foreign: { dataset: to, filter, match } })
        const answers = new Map<string, { ids: number[]; total: number }>()
        for (const match of FOREIGN_MATCH_MODES) {
          const filter = foreign(inner, match)
          const expected = expectedRows(ctx, dataset, filter, sort)
          if (match === 'any') note(dataset, expected.length)
          const query = firstPage(ctx, dataset, filter, sort)
          const answer = await ask(ctx, query)
          sameNumber(`match "${match}": total (the reference evaluator's count)`, expected.length, answer.total)
          sameIds(`match "${match}": ids of page 1 (the reference evaluator's, in order)`, expected.slice(0, query.per_page), answer.ids)
          answers.set(match, answer)
        }
        const all = await ask(ctx, firstPage(ctx, dataset, {}, sort))
        const any = answers.get('any')!
        const none = answers.get('none')!
        if (any.total + none.total !== all.total) {
          throw new Error(`match "none" is not the complement of match "any": count(any) = ${any.total}, count(none) = ${none.total}, count(all) = ${all.total}`)
        }
        // "Any related record": a condition every record holds (an empty hash is refused inside `foreign`).
        const anyRecord = { [datasets[to].primaryKey]: { is_null: false } }
        const rewritten = await ask(ctx, firstPage(ctx, dataset, { and: [foreign(anyRecord, 'any'), foreign({ not: inner }, 'none')] }, sort))
        sameNumber('match "all" against {and: [any related record, none failing the filter]}: total', rewritten.total, answers.get('all')!.total)
        sameIds('match "all" against {and: [any related record, none failing the filter]}: ids of page 1', rewritten.ids, answers.get('all')!.ids)
      }),
    }
  },
}

//// simplifying a failure ////

/** Keys of a generated case that hold a filter, and the key of the dataset it is over. */
const FILTER_KEYS: Readonly<Record<string, string>> = { filter: 'dataset', p: 'dataset', q: 'dataset', inner: 'to' }

/** Filters a little simpler than `filter`, each still well-formed (the caller checks them). */
function simplerFilters(filter: unknown): unknown[] {
  if (Array.isArray(filter)) {
    const out: unknown[] = []
    if (filter.length > 1) for (let i = 0; i < filter.length; i++) out.push(filter.filter((_, j) => j !== i))
    filter.forEach((item, i) => { for (const simpler of simplerFilters(item)) out.push(filter.map((x, j) => (j === i ? simpler : x))) })
    return out
  }
  if (typeof filter !== 'object' || filter === null) return []
  const entries = Object.entries(filter)
  const out: unknown[] = []
  // One key of several; a logical key's child in place of the whole hash.
  if (entries.length > 1) for (const [k, v] of entries) out.push({ [k]: v })
  for (const [k, v] of entries) {
    if ((k === 'and' || k === 'or') && Array.isArray(v) && entries.length === 1) out.push(...v)
    if (k === 'not' && entries.length === 1) out.push(v)
  }
  // The same, one level down.
  for (const [k, v] of entries) {
    const inner = k === 'foreign' && typeof v === 'object' && v !== null ? simplerFilters((v as { filter?: unknown }).filter).map((f) => ({ ...(v as object), filter: f })) : simplerFilters(v)
    for (const simpler of inner) out.push({ ...filter, [k]: simpler })
  }
  return out
}

/** Cases a little simpler than `value`: one filter simplified, the sort or the page size reduced. */
function simplerCases(value: Record<string, unknown>): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = []
  if (Array.isArray(value.sort) && value.sort.length > 0) out.push({ ...value, sort: [] })
  if (typeof value.size === 'number' && value.size > 1) out.push({ ...value, size: 1 })
  for (const key of Object.keys(FILTER_KEYS)) {
    if (!(key in value)) continue
    for (const simpler of simplerFilters(value[key])) out.push({ ...value, [key]: simpler })
  }
  return out
}

/** Whether the checker accepts every filter of a candidate case (a simplification may not be a valid filter). */
function validCase(value: Record<string, unknown>): boolean {
  try {
    for (const [key, datasetKey] of Object.entries(FILTER_KEYS)) if (key in value) checked({ dataset: value[datasetKey], filter: value[key] })
    return true
  } catch {
    return false
  }
}

/**
 * Greedy simplification of a failing case: takes away parts of its filters (keys, children, a
 * `not`, list items) and its sort while the law still fails on it, up to a bounded number of tries.
 */
async function simplify(failing: unknown, fails: (candidate: unknown) => Promise<void>): Promise<{ value: unknown; error: string }> {
  const failure = async (candidate: unknown): Promise<string | undefined> => {
    try {
      await fails(candidate)
      return undefined
    } catch (error) {
      return error instanceof HarnessError ? undefined : (error as Error).message ?? String(error)
    }
  }
  let current = failing
  let error = (await failure(current)) ?? ''
  let budget = 300
  for (let progress = true; progress && budget > 0;) {
    progress = false
    if (typeof current !== 'object' || current === null) break
    for (const candidate of simplerCases(current as Record<string, unknown>)) {
      if (budget-- <= 0) break
      if (!validCase(candidate)) continue
      const message = await failure(candidate)
      if (message === undefined) continue
      current = candidate
      error = message
      progress = true
      break
    }
  }
  return { value: current, error }
}

/** Equivalent regroupings at the top: a one-child `and`/`or`, or a double `not`. */
function regroup(filter: FilterJson, random: () => number): FilterJson {
  const r = random()
  if (r < 0.2) return { and: [filter] }
  if (r < 0.4) return { or: [filter] }
  if (r < 0.6) return { not: { not: filter } }
  return filter
}

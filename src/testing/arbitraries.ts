/**
 * @module fast-check arbitraries of filter JSON, built from the catalog (every field, with the
 * operators its type allows) and from a snapshot of the data (values drawn mostly from values that
 * actually occur), so generated filters select a non-trivial share of rows. A generator whose
 * filters match nothing, or everything, would let a differential test pass while testing nothing;
 * the property tests measure and assert that share.
 *
 * Every generated filter is valid by construction (the checker must accept it). The requests use
 * the sugar and spellings a client may send (numeric strings, enum and tag case, enum aliases, dataset
 * aliases, `in` on tags, `eq: null`, several keys in one hash) so the parser and checker are
 * exercised too, not just the compiler.
 *
 * `filterArbitraries` is the builder the repository's property tests use; `filterArbitrary`,
 * `queryArbitrary` and `sortArbitrary` below are its typed, per-dataset form that
 * `ventureql/testing` exports.
 */
import fc from 'fast-check'
import type { Scalar } from '../ast/nodes.js'
import type { DatasetName, FieldDef } from '../catalog/define.js'
import { DATASET_NAMES, datasets, FOREIGN_MATCH_MODES, OPERATOR_NAMES, operatorsFor, relations, type OperatorName } from '../catalog/index.js'
import { compareValues, createSnapshot, distinctValues, type Snapshot } from '../reference/index.js'
import type { Filter, QueryRequest, SortClause } from '../typed/index.js'

export type FilterJson = { [key: string]: unknown }
export type SortJson = Array<Record<string, 'asc' | 'desc'>>

export interface RequestJson {
  dataset: string
  filter: FilterJson
  sort?: SortJson
}

export interface ArbitraryOptions {
  /** Deepest nesting of and/or/not/foreign below the top-level hash (default 3). */
  readonly maxDepth?: number
  /** Most children of an `and`/`or` (default 3); a field hash holds at most min(width, 2) fields. */
  readonly width?: number
  /** The operators conditions may use (default all); fields that allow none of them are left out. */
  readonly operators?: readonly OperatorName[]
  /** Whether filters may hold `foreign` conditions (default true). */
  readonly foreign?: boolean
  /** Whether to send numeric strings, enum case variants and aliases (default true). */
  readonly sugar?: boolean
  /** Whether date fields may use the compact 'YYYYMMDD' form (default true). */
  readonly compactDates?: boolean
}

export interface FilterArbitraries {
  /** A non-empty filter hash over `dataset`. */
  filter(dataset: DatasetName): fc.Arbitrary<FilterJson>
  /** 0 to 3 sort clauses on distinct sortable fields. */
  sort(dataset: DatasetName): fc.Arbitrary<SortJson>
  /** A request over one of the datasets (or the given one), with a filter and maybe a sort. */
  request(dataset?: DatasetName): fc.Arbitrary<RequestJson>
  /** `{field: {operator: operand}}`: one operator on one field, for exhaustive walks. */
  condition(dataset: DatasetName, field: string, operator: OperatorName): fc.Arbitrary<FilterJson>
  /**
   * A chain of `depth` nested `foreign` conditions from `dataset` (each with its own `match`, each
   * level sometimes `and`-ed or `or`-ed with a condition on its dataset, which keeps many chains
   * from selecting nothing or everything), ending in a field hash: the shape the
   * compiler plans as a probe over one set per level (compile/relations.ts).
   */
  foreignChain(dataset: DatasetName, depth: number): fc.Arbitrary<FilterJson>
  /**
   * 2-3 `foreign` conditions on one related dataset side by side, in the connectives and modes
   * that merge into one (`or` of `any`; `and` of `none`, `not` of `any` and of `all`) and in
   * mixed ones that must not, sometimes with a condition on `dataset` among them and sometimes a
   * nested chain inside.
   */
  foreignSiblings(dataset: DatasetName): fc.Arbitrary<FilterJson>
}

/**
 * Runs `check` on generated conditions for every (dataset, field, operator) pair the catalog allows,
 * `runs` cases each: nested generators reach a given pair only by chance, this walk reaches all of
 * them. Returns how many pairs it walked, so a caller can assert the walk was not empty.
 */
export async function forEveryFieldOperator(
  arbs: FilterArbitraries,
  runs: number,
  check: (dataset: DatasetName, filter: FilterJson) => Promise<void>,
): Promise<number> {
  let pairs = 0
  for (const dataset of DATASET_NAMES) {
    for (const field of Object.values(datasets[dataset].fields) as FieldDef[]) {
      for (const operator of operatorsFor(field.type.kind)) {
        pairs++
        await fc.assert(fc.asyncProperty(arbs.condition(dataset, field.name, operator), (filter) => check(dataset, filter)), { numRuns: runs })
      }
    }
  }
  return pairs
}

/** Values used when a field holds no value at all in the snapshot. */
function fallbackValues(field: FieldDef): Scalar[] {
  switch (field.type.kind) {
    case 'integer': return [0, 1, 1000]
    case 'number': return [0, 1.5, -2.25]
    case 'string': return ['a', 'Acme']
    case 'date': return ['2020-01-01', '2023-06-30']
    case 'datetime': return ['2020-01-01 00:00:00', '2023-06-30 12:30:00']
    case 'boolean': return [true, false]
    case 'enum': return [...field.type.values]
    case 'tags': return ['software']
  }
}

/** Changes the case of a random subset of ASCII letters (text operators fold ASCII only). */
function recase(text: string): fc.Arbitrary<string> {
  return fc.array(fc.boolean(), { minLength: text.length, maxLength: text.length }).map((flips) =>
    [...text].map((ch, i) => (flips[i] && /[a-zA-Z]/.test(ch) ? (ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase()) : ch)).join(''))
}

export function filterArbitraries(snapshot: Snapshot, options: ArbitraryOptions = {}): FilterArbitraries {
  const maxDepth = wholeAtLeast('maxDepth', options.maxDepth ?? 3, 0)
  const width = wholeAtLeast('width', options.width ?? 3, 1)
  const sugar = options.sugar ?? true
  const compactDates = options.compactDates ?? true
  const withForeign = options.foreign ?? true
  const allowed = new Set<OperatorName>(options.operators ?? OPERATOR_NAMES)
  for (const op of allowed) {
    if (!OPERATOR_NAMES.includes(op)) throw new Error(`arbitraries: operators: expected operator names (${OPERATOR_NAMES.join(', ')}), got ${JSON.stringify(op)}`)
  }
  if (allowed.size === 0) throw new Error('arbitraries: operators: expected at least one operator name, got an empty list')
  const opsOf = (field: FieldDef): OperatorName[] => operatorsFor(field.type.kind).filter((op) => allowed.has(op))

  const pools = new Map<string, Scalar[]>()
  function pool(ds: DatasetName, field: FieldDef): Scalar[] {
    const key = `${ds}.${field.name}`
    let values = pools.get(key)
    if (!values) {
      values = distinctValues(snapshot, ds, field.name).sort((a, b) => compareValues(a, b))
      if (values.length === 0) values = fallbackValues(field)
      pools.set(key, values)
    }
    return values
  }

  /** How a client might spell a typed value: as is, or in an accepted alternative form. */
  function spell(field: FieldDef, value: Scalar): fc.Arbitrary<Scalar> {
    if (!sugar || value === null) return fc.constant(value)
    const alternatives: Scalar[] = []
    switch (field.type.kind) {
      case 'integer':
      case 'number':
        if (/^-?\d+(\.\d+)?$/.test(String(value))) alternatives.push(String(value))
        break
      case 'date':
        if (compactDates && typeof value === 'string') alternatives.push(value.replace(/-/g, ''))
        break
      case 'tags': {
        // Tag values match in any ASCII case (compile/tags.ts), as enum values do.
        const text = String(value)
        alternatives.push(text.toLowerCase(), text.toUpperCase(), text.replace(/[a-zA-Z]/g, (ch, i: number) => (i % 2 === 0 ? ch.toUpperCase() : ch.toLowerCase())))
        break
      }
      case 'enum': {
        const text = String(value)
        alternatives.push(text.toLowerCase(), text.toUpperCase())
        for (const [alias, target] of Object.entries(field.type.aliases ?? {})) if (target === text) alternatives.push(alias)
        break
      }
      default:
        break
    }
    if (alternatives.length === 0) return fc.constant(value)
    return fc.oneof({ arbitrary: fc.constant(value), weight: 3 }, { arbitrary: fc.constantFrom(...alternatives), weight: 1 })
  }

  /** A typed value of the field: mostly one that occurs in the data. */
  function typedValue(ds: DatasetName, field: FieldDef): fc.Arbitrary<Scalar> {
    const values = pool(ds, field)
    const occurring = fc.constantFrom(...values)
    switch (field.type.kind) {
      case 'integer':
        return fc.oneof({ arbitrary: occurring, weight: 6 }, { arbitrary: fc.integer({ min: -10, max: 2_000_000 }), weight: 1 })
      case 'number':
        return fc.oneof({ arbitrary: occurring, weight: 6 }, { arbitrary: fc.integer({ min: -1000, max: 1000 }).map((n) => n / 4), weight: 1 })
      case 'boolean':
        return fc.boolean()
      case 'enum':
        return fc.oneof({ arbitrary: occurring, weight: 3 }, { arbitrary: fc.constantFrom(...field.type.values), weight: 1 })
      default:
        return occurring
    }
  }

  const value = (ds: DatasetName, field: FieldDef): fc.Arbitrary<Scalar> => typedValue(ds, field).chain((v) => spell(field, v))

  function list(ds: DatasetName, field: FieldDef, max: number): fc.Arbitrary<Scalar[]> {
    return fc.array(typedValue(ds, field), { minLength: 1, maxLength: max }).chain((vs) => fc.tuple(...vs.map((v) => spell(field, v))))
  }

  /** A piece of an occurring text value, for the literal text operators. */
  function textOperand(ds: DatasetName, field: FieldDef, op: 'contains' | 'starts_with' | 'ends_with'): fc.Arbitrary<string> {
    const texts = pool(ds, field).map(String).filter((t) => t.length > 0)
    const source = texts.length ? fc.constantFrom(...texts) : fc.constant('a')
    return source
      .chain((t) => fc.tuple(fc.constant(t), fc.integer({ min: 1, max: Math.min(t.length, 6) }), fc.nat({ max: Math.max(0, t.length - 1) })))
      .map(([t, len, at]) => (op === 'starts_with' ? t.slice(0, len) : op === 'ends_with' ? t.slice(-len) : t.slice(Math.min(at, t.length - len), Math.min(at, t.length - len) + len)))
      .chain(recase)
  }

  function operand(ds: DatasetName, field: FieldDef, op: OperatorName): fc.Arbitrary<unknown> {
    switch (op) {
      case 'eq':
        return field.nullable ? fc.oneof({ arbitrary: value(ds, field), weight: 9 }, { arbitrary: fc.constant(null), weight: 1 }) : value(ds, field)
      case 'ne':
      case 'gt':
      case 'gte':
      case 'lt':
      case 'lte':
        return value(ds, field)
      case 'between':
        return fc.tuple(typedValue(ds, field), typedValue(ds, field))
          .map(([a, b]) => (compareValues(a, b) <= 0 ? [a, b] : [b, a]) as [Scalar, Scalar])
          .chain(([a, b]) => fc.tuple(spell(field, a), spell(field, b)))
      case 'in':
      case 'nin':
      case 'has_any':
      case 'has_none':
        return list(ds, field, 4)
      case 'has_all':
        return list(ds, field, 2)
      case 'is_null':
      case 'is_empty':
        return fc.boolean()
      case 'contains':
      case 'starts_with':
      case 'ends_with':
        return textOperand(ds, field, op)
    }
  }

  /** What one field key holds: a bare scalar (equality) or a hash of 1–2 distinct operators. */
  function fieldCondition(ds: DatasetName, field: FieldDef): fc.Arbitrary<unknown> {
    const ops = opsOf(field)
    const hash = fc.shuffledSubarray(ops, { minLength: 1, maxLength: Math.min(2, ops.length) }).chain((chosen) =>
      fc.tuple(...chosen.map((op) => operand(ds, field, op).map((v) => [op, v] as const))).map((entries) => Object.fromEntries(entries)))
    // A bare value is `eq`; `null` would be `is_null`, so bare values are never null.
    return allowed.has('eq') ? fc.oneof({ arbitrary: value(ds, field), weight: 1 }, { arbitrary: hash, weight: 3 }) : hash
  }

  const fieldsOf = (ds: DatasetName): FieldDef[] => {
    const usable = (Object.values(datasets[ds].fields) as FieldDef[]).filter((f) => opsOf(f).length > 0)
    if (usable.length === 0) throw new Error(`arbitraries: no field of ${ds} allows any of the operators ${[...allowed].join(', ')}`)
    return usable
  }

  /** A hash of 1–2 distinct field conditions. */
  function fieldHash(ds: DatasetName): fc.Arbitrary<FilterJson> {
    const fields = fieldsOf(ds)
    return fc.shuffledSubarray(fields, { minLength: 1, maxLength: Math.min(2, width, fields.length) }).chain((chosen) =>
      fc.tuple(...chosen.map((f) => fieldCondition(ds, f).map((v) => [f.name, v] as const))).map((entries) => Object.fromEntries(entries)))
  }

  const related = (ds: DatasetName): DatasetName[] => relations.filter((r) => r.from === ds).map((r) => r.to)
  const targets = (ds: DatasetName): DatasetName[] => (withForeign ? related(ds) : [])

  /** Spellings of a dataset name a client may use in `foreign`. */
  const datasetSpelling = (ds: DatasetName): fc.Arbitrary<string> =>
    sugar ? fc.constantFrom(ds, ...datasets[ds].aliases) : fc.constant(ds)

  const memo = new Map<string, fc.Arbitrary<FilterJson>>()
  function filterAt(ds: DatasetName, depth: number): fc.Arbitrary<FilterJson> {
    const key = `${ds}/${depth}`
    const known = memo.get(key)
    if (known) return known
    let arb: fc.Arbitrary<FilterJson>
    if (depth <= 0) arb = fieldHash(ds)
    else {
      const child = (): fc.Arbitrary<FilterJson> => filterAt(ds, depth - 1)
      const logical: fc.Arbitrary<[string, unknown]>[] = [
        fc.array(child(), { minLength: 1, maxLength: width }).map((cs) => ['and', cs] as [string, unknown]),
        fc.array(child(), { minLength: 1, maxLength: width }).map((cs) => ['or', cs] as [string, unknown]),
        child().map((c) => ['not', c] as [string, unknown]),
      ]
      const foreignTargets = targets(ds)
      if (foreignTargets.length) {
        logical.push(
          fc.constantFrom(...foreignTargets).chain((to) =>
            fc.record({
              dataset: datasetSpelling(to),
              filter: filterAt(to, depth - 1),
              match: fc.constantFrom(...FOREIGN_MATCH_MODES),
            }, { requiredKeys: ['dataset', 'filter'] }).map((f) => ['foreign', f] as [string, unknown])),
        )
      }
      const oneLogical = fc.oneof(...logical).map(([k, v]) => ({ [k]: v }))
      const mixed = fc.tuple(fc.oneof(...logical), fieldHash(ds)).map(([[k, v], fields]) => ({ ...fields, [k]: v }))
      arb = fc.oneof(
        { arbitrary: fieldHash(ds), weight: 3 },
        { arbitrary: oneLogical, weight: 4 },
        { arbitrary: mixed, weight: 1 },
      )
    }
    memo.set(key, arb)
    return arb
  }

  function sort(ds: DatasetName): fc.Arbitrary<SortJson> {
    const sortable = fieldsOf(ds).filter((f) => f.sortable)
    return fc.shuffledSubarray(sortable, { minLength: 0, maxLength: 3 }).chain((chosen) =>
      fc.tuple(...chosen.map((f) => fc.constantFrom('asc', 'desc').map((d) => ({ [f.name]: d } as Record<string, 'asc' | 'desc'>)))))
  }

  const matchMode = fc.constantFrom(...FOREIGN_MATCH_MODES)

  function foreignChain(ds: DatasetName, depth: number): fc.Arbitrary<FilterJson> {
    if (depth <= 0) return fieldHash(ds)
    return fc.constantFrom(...related(ds)).chain((to) =>
      fc.tuple(datasetSpelling(to), foreignChain(to, depth - 1), matchMode, fc.option(fieldHash(ds), { freq: 2 }), fc.constantFrom('and', 'or'))
        .map(([dataset, filter, match, beside, connective]) => {
          const f: FilterJson = { foreign: { dataset, filter, match } }
          return beside ? { [connective]: [beside, f] } : f
        }))
  }

  function foreignSiblings(ds: DatasetName): fc.Arbitrary<FilterJson> {
    const inner = (to: DatasetName) => fc.oneof({ arbitrary: fieldHash(to), weight: 3 }, { arbitrary: foreignChain(to, 1), weight: 1 })
    return fc.constantFrom(...related(ds)).chain((to) => {
      const one = (match: 'any' | 'none' | 'all') => fc.tuple(datasetSpelling(to), inner(to)).map(([dataset, filter]) => ({ foreign: { dataset, filter, match } }))
      const anyOr = fc.array(one('any'), { minLength: 2, maxLength: 3 })
      const noneAnd = fc.array(fc.oneof(one('none'), one('any').map((f) => ({ not: f }))), { minLength: 2, maxLength: 3 })
      const allAnd = fc.array(one('all'), { minLength: 2, maxLength: 3 })
      // And shapes that must not merge: `and` of `any` needs two related records, an `or` of
      // `all` or `none` is no `all` or `none` of anything.
      const mixed = fc.array(matchMode.chain(one), { minLength: 2, maxLength: 3 })
      const withPlain = (connective: 'and' | 'or', parts: fc.Arbitrary<FilterJson[]>) =>
        fc.tuple(parts, fc.option(fieldHash(ds), { freq: 3 })).map(([fs, plain]) => ({ [connective]: plain ? [...fs, plain] : fs }))
      return fc.oneof(
        withPlain('or', anyOr), withPlain('and', noneAnd), withPlain('and', allAnd),
        withPlain('or', mixed), withPlain('and', mixed),
      )
    })
  }

  return {
    foreignChain,
    foreignSiblings,
    condition: (ds, name, op) => {
      const field = datasets[ds].fields[name]
      if (!field) throw new Error(`arbitraries: ${ds} has no field ${name}`)
      return operand(ds, field, op).map((v) => ({ [name]: { [op]: v } }))
    },
    filter: (ds) => filterAt(ds, maxDepth),
    sort,
    request: (only) =>
      fc.constantFrom(...(only ? [only] : DATASET_NAMES)).chain((ds) =>
        fc.record({ dataset: datasetSpelling(ds), filter: filterAt(ds, maxDepth), sort: sort(ds) }, { requiredKeys: ['dataset', 'filter'] })),
  }
}

function wholeAtLeast(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min) throw new Error(`arbitraries: ${name}: expected an integer of at least ${min}, got ${JSON.stringify(value)}`)
  return value
}

//// the typed, per-dataset entry points of ventureql/testing ////

/** Options of `filterArbitrary` and `queryArbitrary`. */
export interface FilterArbitraryOptions {
  /** Deepest nesting of `and`/`or`/`not`/`foreign` below the top-level hash (default 3). */
  readonly depth?: number
  /** Most children of an `and`/`or` (default 3); a field hash holds at most min(width, 2) fields. */
  readonly width?: number
  /** The operators conditions may use (default all); fields that allow none of them are left out. */
  readonly operators?: readonly OperatorName[]
  /** Whether filters may hold `foreign` conditions on related datasets (default true). */
  readonly foreign?: boolean
  /**
   * The data whose values operands are drawn from, mostly (`loadSnapshot(database or file)`), so
   * that filters match some but not all of its rows. Without it, a few fixed values per type.
   */
  readonly values?: Snapshot
  /**
   * Whether values come in every spelling the language accepts (default true): numeric strings,
   * compact `YYYYMMDD` dates, enum aliases and enum values in another case (which the language
   * accepts and the `Filter` type does not spell out). Off: values as the records hold them.
   */
  readonly sugar?: boolean
}

const EMPTY_SNAPSHOT = createSnapshot({})

function builderFor(options: FilterArbitraryOptions): FilterArbitraries {
  return filterArbitraries(options.values ?? EMPTY_SNAPSHOT, {
    ...(options.depth !== undefined ? { maxDepth: options.depth } : {}),
    ...(options.width !== undefined ? { width: options.width } : {}),
    ...(options.operators !== undefined ? { operators: options.operators } : {}),
    ...(options.foreign !== undefined ? { foreign: options.foreign } : {}),
    ...(options.sugar !== undefined ? { sugar: options.sugar, compactDates: options.sugar } : {}),
  })
}

function knownDataset(dataset: string): DatasetName {
  if (!(DATASET_NAMES as readonly string[]).includes(dataset)) throw new Error(`arbitraries: dataset: expected one of ${DATASET_NAMES.join(', ')}, got ${JSON.stringify(dataset)}`)
  return dataset as DatasetName
}

/**
 * Valid filters over `dataset`, derived from the catalog: every field with the operators its type
 * allows, `and`/`or`/`not`, and `foreign` conditions on the related datasets. Every one passes
 * `checkFilter`.
 *
 * @example
 * fc.assert(fc.property(filterArbitrary('companies', { values: snapshot, depth: 2 }), (filter) => ...))
 */
export function filterArbitrary<D extends DatasetName>(dataset: D, options: FilterArbitraryOptions = {}): fc.Arbitrary<Filter<D>> {
  return builderFor(options).filter(knownDataset(dataset)) as unknown as fc.Arbitrary<Filter<D>>
}

/** 0 to 3 sort clauses on distinct sortable fields of `dataset`, each ascending or descending. */
export function sortArbitrary<D extends DatasetName>(dataset: D): fc.Arbitrary<SortClause<D>[]> {
  return builderFor({}).sort(knownDataset(dataset)) as unknown as fc.Arbitrary<SortClause<D>[]>
}

/** Requests `{dataset, filter, sort?}` over `dataset`, as `engine.query` and POST /queries take them. */
export function queryArbitrary<D extends DatasetName>(dataset: D, options: FilterArbitraryOptions = {}): fc.Arbitrary<QueryRequest<D>> {
  const builder = builderFor(options)
  const ds = knownDataset(dataset)
  return fc.record({ dataset: fc.constant(dataset), filter: builder.filter(ds), sort: builder.sort(ds) }, { requiredKeys: ['dataset', 'filter'] }) as unknown as fc.Arbitrary<QueryRequest<D>>
}

/** A tiny seeded PRNG (mulberry32), so permutations are reproducible from a fast-check seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    const tmp = out[i]!
    out[i] = out[j]!
    out[j] = tmp
  }
  return out
}

/** Keys whose arrays are unordered sets in the language (and/or children, value lists). */
const UNORDERED = new Set(['and', 'or', 'in', 'nin', 'has_any', 'has_all', 'has_none'])

/**
 * The same filter written differently: every hash's keys shuffled, every unordered array
 * shuffled, and sometimes an element repeated. The language says these mean the same, so they must
 * get the same canonical form and `query_id`. `between` pairs keep their order.
 */
export function permuteFilter(filter: unknown, random: () => number): unknown {
  if (Array.isArray(filter)) return filter.map((x) => permuteFilter(x, random))
  if (typeof filter !== 'object' || filter === null) return filter
  const entries = shuffle(Object.entries(filter), random).map(([k, v]) => {
    if (UNORDERED.has(k) && Array.isArray(v)) {
      let items = shuffle(v.map((x) => permuteFilter(x, random)), random)
      if (items.length > 0 && random() < 0.3) items = [...items, items[Math.floor(random() * items.length)]]
      return [k, items] as const
    }
    return [k, permuteFilter(v, random)] as const
  })
  return Object.fromEntries(entries)
}

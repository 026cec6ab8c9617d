/**
 * @module The reference evaluator: the language's semantics (grammar-docs/language.md) written
 * as plain JS over an in-memory snapshot, independently of SQL. Property tests compare the
 * engine's rows with these; when they disagree, one of the two misreads the grammar-docs.
 *
 * It accepts the checker's normal form (src/check/checked.ts) and, to stay useful as an oracle
 * for hand-written trees, also the sugar that normal form removes (`ne`, `nin`, `has_none`,
 * `eq`/`in` on tags), each as the exact complement or alias the docs define.
 */
import type { ConditionNode, FilterNode, Scalar } from '../ast/nodes.js'
import type { DatasetDef, DatasetName, FieldDef, RelationDef } from '../catalog/define.js'
import { findRelation, getField, resolveDataset } from '../catalog/index.js'
import type { FilterVisitor } from '../ast/visit.js'
import { visitFilter } from '../ast/visit.js'
import type { DatasetSnapshot, Snapshot, SnapshotRow } from './snapshot.js'

/**
 * Case folding for the literal text operators: ASCII letters only, as SQLite's `lower()` and
 * `LIKE` fold them, so every backend agrees on non-ASCII text (grammar-docs/language.md, "Text").
 */
export function foldAscii(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase())
}

const utf8 = new TextEncoder()

/**
 * Total order of two non-null values of one field: numbers numerically, booleans false < true,
 * text by its UTF-8 bytes (SQLite's BINARY collation; ISO dates and datetimes sort as time).
 */
export function compareValues(a: Scalar, b: Scalar): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b)
  const sa = String(a)
  const sb = String(b)
  if (sa === sb) return 0
  // Code-unit order equals byte order except around surrogates; only then pay for encoding.
  if (!/[\uD800-\uDFFF\uE000-\uFFFF]/.test(sa + sb)) return sa < sb ? -1 : 1
  return Buffer.compare(utf8.encode(sa), utf8.encode(sb))
}

function equalValues(a: Scalar, b: Scalar): boolean {
  return a !== null && b !== null && compareValues(a, b) === 0
}

/** Whether one non-tags condition holds for a value (null already handled by the caller). */
function scalarHolds(node: ConditionNode, v: Scalar): boolean {
  switch (node.operator) {
    case 'eq': return equalValues(v, node.value)
    case 'ne': return !equalValues(v, node.value)
    case 'gt': return node.value !== null && compareValues(v, node.value) > 0
    case 'gte': return node.value !== null && compareValues(v, node.value) >= 0
    case 'lt': return node.value !== null && compareValues(v, node.value) < 0
    case 'lte': return node.value !== null && compareValues(v, node.value) <= 0
    case 'between': {
      const [lo, hi] = node.value
      return lo !== null && hi !== null && compareValues(v, lo) >= 0 && compareValues(v, hi) <= 0
    }
    case 'in': return node.value.some((x) => equalValues(v, x))
    case 'nin': return !node.value.some((x) => equalValues(v, x))
    case 'is_null': return node.value === false
    case 'contains': return foldAscii(String(v)).includes(foldAscii(node.value))
    case 'starts_with': return foldAscii(String(v)).startsWith(foldAscii(node.value))
    case 'ends_with': return foldAscii(String(v)).endsWith(foldAscii(node.value))
    case 'has_any':
    case 'has_all':
    case 'has_none':
    case 'is_empty':
      throw new Error(`reference: ${node.operator} on scalar field ${node.field}`)
  }
}

/** Whether one condition on a tags field holds for an owner's values (empty set when it has none), in any ASCII case. */
function tagsHold(node: ConditionNode, values: ReadonlySet<string>): boolean {
  // Tag values match in any case of their ASCII letters, as the SQL does (compile/tags.ts).
  const folded = new Set([...values].map(foldAscii))
  const has = (x: Scalar): boolean => x !== null && folded.has(foldAscii(String(x)))
  switch (node.operator) {
    case 'eq': return has(node.value)
    case 'in':
    case 'has_any': return node.value.some(has)
    case 'has_all': return node.value.every(has)
    case 'has_none': return !node.value.some(has)
    case 'is_empty': return (values.size === 0) === node.value
    default:
      throw new Error(`reference: ${node.operator} on tags field ${node.field}`)
  }
}

const NO_TAGS: ReadonlySet<string> = new Set()

function conditionHolds(ds: DatasetSnapshot, field: FieldDef, node: ConditionNode, pk: number, row: SnapshotRow): boolean {
  if (field.type.kind === 'tags') return tagsHold(node, ds.tags.get(field.name)?.get(pk) ?? NO_TAGS)
  const v = row[field.name] ?? null
  if (v === null) {
    // A missing value satisfies only `is_null: true` and the null-inclusive complements.
    if (node.operator === 'is_null') return node.value === true
    return node.operator === 'ne' || node.operator === 'nin'
  }
  return scalarHolds(node, v)
}

/** For each record of `relation.from`, the primary keys of its related `relation.to` records that exist. */
function relatedIndex(snapshot: Snapshot, relation: RelationDef): ReadonlyMap<number, readonly number[]> {
  const cached = relationCache.get(snapshot)?.get(relation)
  if (cached) return cached
  const from = snapshot.datasets[relation.from]
  const to = snapshot.datasets[relation.to]
  const index = new Map<number, number[]>()
  const add = (a: number, b: number): void => {
    if (!from.rows.has(a) || !to.rows.has(b)) return
    const list = index.get(a)
    if (list) list.push(b)
    else index.set(a, [b])
  }
  if (relation.kind === 'link') {
    for (const link of snapshot.links.get(relation.table) ?? []) {
      const a = link[relation.fromKey]
      const b = link[relation.toKey]
      if (a !== undefined && b !== undefined) add(a, b)
    }
  } else {
    const fromField = fieldByColumn(from.def, relation.fromColumn)
    const toField = fieldByColumn(to.def, relation.toColumn)
    const toByValue = new Map<Scalar, number[]>()
    for (const [pk, row] of to.rows) {
      const v = row[toField.name] ?? null
      if (v === null) continue
      const list = toByValue.get(v)
      if (list) list.push(pk)
      else toByValue.set(v, [pk])
    }
    for (const [pk, row] of from.rows) {
      const v = row[fromField.name] ?? null
      if (v === null) continue
      for (const b of toByValue.get(v) ?? []) add(pk, b)
    }
  }
  let perSnapshot = relationCache.get(snapshot)
  if (!perSnapshot) relationCache.set(snapshot, (perSnapshot = new Map()))
  perSnapshot.set(relation, index)
  return index
}

const relationCache = new WeakMap<Snapshot, Map<RelationDef, ReadonlyMap<number, readonly number[]>>>()

function fieldByColumn(def: DatasetDef, column: string): FieldDef {
  const f = (Object.values(def.fields) as FieldDef[]).find((x) => x.column === column)
  if (!f) throw new Error(`reference: ${def.name} has no field on column ${column}`)
  return f
}

/**
 * The primary keys of the records of `dataset` that match `filter`. Two-valued logic throughout:
 * every node is true or false for every record, so `Not` is the exact complement.
 */
export function evaluate(filter: FilterNode, dataset: DatasetDef, snapshot: Snapshot): Set<number> {
  const ds = snapshot.datasets[dataset.name]
  const all = (): Set<number> => new Set(ds.ids)
  const visitor: FilterVisitor<Set<number>> = {
    MatchAll: () => all(),
    And: (node) => {
      let result = all()
      for (const child of node.children) {
        const matched = evaluate(child, dataset, snapshot)
        result = new Set([...result].filter((pk) => matched.has(pk)))
      }
      return result
    },
    Or: (node) => {
      const result = new Set<number>()
      for (const child of node.children) for (const pk of evaluate(child, dataset, snapshot)) result.add(pk)
      return result
    },
    Not: (node) => {
      const matched = evaluate(node.child, dataset, snapshot)
      return new Set(ds.ids.filter((pk) => !matched.has(pk)))
    },
    Foreign: (node) => {
      const target = resolveDataset(node.dataset)
      if (!target) throw new Error(`reference: unknown dataset ${node.dataset}`)
      const relation = findRelation(dataset.name, target.name)
      if (!relation) throw new Error(`reference: no relation ${dataset.name} → ${target.name}`)
      const inner = evaluate(node.filter, target, snapshot)
      const index = relatedIndex(snapshot, relation)
      return new Set(ds.ids.filter((pk) => {
        const related = index.get(pk) ?? []
        switch (node.match) {
          case 'any': return related.some((r) => inner.has(r))
          case 'none': return !related.some((r) => inner.has(r))
          case 'all': return related.length > 0 && related.every((r) => inner.has(r))
        }
      }))
    },
    Condition: (node) => {
      const field = getField(dataset, node.field)
      if (!field) throw new Error(`reference: unknown field ${dataset.name}.${node.field}`)
      return new Set(ds.ids.filter((pk) => conditionHolds(ds, field, node, pk, ds.rows.get(pk) ?? {})))
    },
  }
  return visitFilter(filter, visitor)
}

export interface SortSpec {
  /** A field of the dataset (a `CheckedSort` fits). */
  readonly field: Pick<FieldDef, 'name'>
  readonly direction: 'asc' | 'desc'
}

/**
 * Orders primary keys as the language defines (grammar-docs/language.md, "Sort"): clauses in
 * order, NULLs last whatever the direction, then the primary key ascending as the tiebreaker.
 */
export function sortRecords(ids: Iterable<number>, sort: readonly SortSpec[], dataset: DatasetDef | DatasetName, snapshot: Snapshot): number[] {
  const ds = snapshot.datasets[typeof dataset === 'string' ? dataset : dataset.name]
  const rowOf = (pk: number): SnapshotRow => ds.rows.get(pk) ?? {}
  return [...ids].sort((a, b) => {
    const ra = rowOf(a)
    const rb = rowOf(b)
    for (const clause of sort) {
      const va = ra[clause.field.name] ?? null
      const vb = rb[clause.field.name] ?? null
      if (va === null && vb === null) continue
      if (va === null) return 1
      if (vb === null) return -1
      const c = compareValues(va, vb)
      if (c !== 0) return clause.direction === 'asc' ? c : -c
    }
    return a - b
  })
}

/** `evaluate` then `sortRecords`: the rows (primary keys, in order) a query must return. */
export function referenceRows(filter: FilterNode, dataset: DatasetDef, sort: readonly SortSpec[], snapshot: Snapshot): number[] {
  return sortRecords(evaluate(filter, dataset, snapshot), sort, dataset, snapshot)
}

/**
 * @module Facets counted in memory: a dataset's columns read once per data version into compact
 * arrays (each record's value as a code into the column's sorted distinct values; a tags field as
 * each record's run of value codes), the filter evaluated over them as one byte per record, and
 * every requested facet and the total counted in one pass over the selected records.
 *
 * A `GROUP BY` per field costs a join per selected record for a tags field (30-40 times the
 * filter's covering-index count at 100,000 companies); here a facet costs a pass over arrays
 * (`npx tsx bench/facets.ts` measures both against the first count).
 *
 * It evaluates filters of AND, OR, NOT and conditions on fields whose columns it holds, exactly as
 * the SQL does (grammar-docs/language.md; the property tests compare both with the reference
 * evaluator). Any other filter (through `foreign`, on a field without an index, on one with more
 * than `MAX_DISTINCT` distinct values, such as a name or a score, or with a value whose type does
 * not fit its field)
 * selects its records in SQL, by the count's WHERE, read as one array of keys. Facets on a field
 * that is not held are counted by a `GROUP BY` each (`facets.ts`). The columns are kept per
 * connection for the data version they were read at and dropped when it changes.
 *
 * A request never reads a column (`facetsHeld`): the pipeline reads them in the background
 * (`readFacetColumns`, one statement per dataset's keys or field, a turn of the event loop between
 * them), before a worker takes calls and whenever a request finds columns missing at its data
 * version. Which fields: `PRELOADED_FACET_FIELDS`, and every field a facets request on the
 * connection asked for or filtered on since (a field with too many values to hold is dropped).
 */
import { sql, type Kysely } from 'kysely'
import type { ConditionNode, FilterNode, Scalar } from '../ast/nodes.js'
import type { DatasetDef, FieldDef } from '../catalog/define.js'
import { getField, primaryKeyColumn, resolveDataset } from '../catalog/index.js'
import { foldAscii } from '../compile/text.js'
import { DATA_VERSION_KEY, META_TABLE } from '../store/schema/stored-query-tables.js'
import { matchingKeysQuery } from '../compile/facets.js'
import type { ExecContext } from './context.js'
import { readRows } from './statements.js'

/** Most distinct values of a column held in memory; a field with more is counted in SQL. */
export const MAX_DISTINCT = 65_535

type Codes = Uint8Array | Uint16Array | Uint32Array

/** A scalar column: `codes[row]` is 0 for NULL, else 1 + the index of the value in `values` (ascending). */
interface ScalarColumn {
  readonly kind: 'scalar'
  readonly codes: Codes
  readonly values: readonly Scalar[]
}

/** A tags column: record `row` holds `codes[offsets[row] .. offsets[row + 1])`, indexes into `values` (ascending). */
interface TagsColumn {
  readonly kind: 'tags'
  readonly offsets: Uint32Array
  readonly codes: Codes
  readonly values: readonly string[]
}

type Column = ScalarColumn | TagsColumn

/** One dataset's columns at one data version. `null`: the field is not held (too many distinct values). */
interface DatasetColumns {
  keys: Keys
  readonly fields: Map<string, Column | null>
}

interface Store {
  readonly version: number
  readonly datasets: Map<string, DatasetColumns>
}

/** The groups of one facet: each value's count, and the records without a value. */
export interface CountedGroups {
  readonly counts: ReadonlyMap<string, number>
  readonly missing: number
}

export interface InMemoryFacets {
  readonly total: number
  readonly groups: ReadonlyMap<string, CountedGroups>
}

const narrow = (codes: Uint32Array, distinct: number): Codes =>
  distinct < 0xff ? Uint8Array.from(codes) : distinct < 0xffff ? Uint16Array.from(codes) : codes

/** The value of a stored column as the filter's normal form types it (check/checked.ts). */
function typed(field: FieldDef, raw: unknown): Scalar {
  if (raw === null || raw === undefined) return null
  switch (field.type.kind) {
    case 'integer':
    case 'number':
      return Number(raw)
    case 'boolean':
      return raw === true || raw === 1 || raw === '1' || raw === 't' || raw === 'true'
    default:
      return String(raw)
  }
}

const utf8 = new TextEncoder()

/** The columns' order: numbers numerically, false before true, text by UTF-8 bytes (SQLite's BINARY collation). */
export function compareScalars(a: Scalar, b: Scalar): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b)
  const sa = String(a)
  const sb = String(b)
  if (sa === sb) return 0
  // UTF-16 code-unit order is UTF-8 byte order except from the surrogates up.
  if (!/[\uD800-\uFFFF]/.test(sa) && !/[\uD800-\uFFFF]/.test(sb)) return sa < sb ? -1 : 1
  return Buffer.compare(utf8.encode(sa), utf8.encode(sb))
}

/**
 * The records of `table` grouped by `value` (a column, or a link table's value): each distinct
 * value once with the keys (`key`) of its rows. On SQLite each group's keys arrive as one JSON
 * array (`json_group_array`; `array_agg` on PostgreSQL), read off an index on the value where
 * there is one: a row per record through the driver cost several times as much (~2 us a row at
 * 100,000 companies). `onGroup` answering false ends the read.
 */
async function groupsOf(ctx: ExecContext, table: string, value: string, key: string, onGroup: (value: unknown, keys: readonly number[]) => boolean): Promise<void> {
  if (ctx.sqlite) {
    const compiled = ctx.db.selectFrom(table).select([sql.ref(value).as('v'), sql<string>`json_group_array(${sql.ref(key)})`.as('k')]).groupBy(value).compile()
    for (const [v, keys] of ctx.sqlite.prepare(compiled.sql).raw(true).iterate(...compiled.parameters) as Iterable<[unknown, string]>) {
      if (!onGroup(v, JSON.parse(keys) as number[])) return
    }
    return
  }
  // PostgreSQL: the same groups, each group's keys as one array.
  const compiled = ctx.db.selectFrom(table).select([sql.ref(value).as('v'), sql<unknown[]>`array_agg(${sql.ref(key)})`.as('k')]).groupBy(value).compile()
  const { rows } = await ctx.db.executeQuery<{ v: unknown; k: unknown[] }>(compiled)
  for (const r of rows) if (!onGroup(r.v, r.k.map(Number))) return
}

/** Codes per value of a column being read: ascending codes are assigned once every value was seen. */
class Dictionary<V extends Scalar> {
  readonly #byValue = new Map<V, number>()
  readonly #values: V[] = []
  overflow = false

  /** The provisional code of `value` (1-based), or 0 once there are too many values. */
  code(value: V): number {
    let code = this.#byValue.get(value)
    if (code === undefined) {
      if (this.#values.length >= MAX_DISTINCT) {
        this.overflow = true
        return 0
      }
      this.#values.push(value)
      this.#byValue.set(value, (code = this.#values.length))
    }
    return code
  }

  /** The values ascending, and for each provisional code its final one. */
  sorted(): { values: V[]; remap: Uint32Array } {
    const order = this.#values.map((_, i) => i).sort((a, b) => compareScalars(this.#values[a]!, this.#values[b]!))
    const remap = new Uint32Array(this.#values.length + 1)
    order.forEach((provisional, final) => { remap[provisional + 1] = final + 1 })
    return { values: order.map((i) => this.#values[i]!), remap }
  }
}

/** How many records a dataset has, and each primary key's position among their keys in ascending order (-1: not a record). */
interface Keys {
  readonly count: number
  position(id: number): number
}

function keysOf(ids: Float64Array): Keys {
  const count = ids.length
  const first = ids[0] ?? 0
  // Keys first..first + n - 1 (generated and most loaded data): a key's position is its offset, and the keys need not be kept.
  if (count === 0 || ids[count - 1] === first + count - 1) {
    return { count, position: (id) => (Number.isInteger(id) && id >= first && id - first < count ? id - first : -1) }
  }
  return {
    count,
    position: (id) => {
      let lo = 0
      let hi = count - 1
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1
        const at = ids[mid]!
        if (at === id) return mid
        if (at < id) lo = mid + 1
        else hi = mid - 1
      }
      return -1
    },
  }
}

async function readIds(ctx: ExecContext, dataset: DatasetDef): Promise<Float64Array> {
  const pk = primaryKeyColumn(dataset)
  let ids: number[] = []
  if (ctx.sqlite) {
    const compiled = ctx.db.selectFrom(dataset.table).select(sql<string>`json_group_array(${sql.ref(pk)})`.as('k')).compile()
    ids = JSON.parse(ctx.sqlite.prepare(compiled.sql).pluck().get(...compiled.parameters) as string) as number[]
  } else {
    const { rows } = await ctx.db.executeQuery<{ k: unknown[] | null }>(ctx.db.selectFrom(dataset.table).select(sql<unknown[]>`array_agg(${sql.ref(pk)})`.as('k')).compile())
    ids = (rows[0]?.k ?? []).map(Number)
  }
  return Float64Array.from(ids).sort()
}

async function readScalar(ctx: ExecContext, dataset: DatasetDef, field: FieldDef, keys: Keys): Promise<ScalarColumn | null> {
  const dictionary = new Dictionary<Scalar>()
  const codes = new Uint32Array(keys.count)
  let assigned = 0
  let unknown = false
  await groupsOf(ctx, dataset.table, field.column!, primaryKeyColumn(dataset), (raw, ids) => {
    const value = typed(field, raw)
    const code = value === null ? 0 : dictionary.code(value)
    if (dictionary.overflow) return false
    for (const id of ids) {
      const at = keys.position(Number(id))
      if (at < 0) {
        unknown = true
        return false
      }
      codes[at] = code
    }
    assigned += ids.length
    return true
  })
  if (dictionary.overflow) return null
  if (unknown || assigned !== keys.count) throw new Changed()
  const { values, remap } = dictionary.sorted()
  for (let i = 0; i < codes.length; i++) codes[i] = remap[codes[i]!]!
  return { kind: 'scalar', codes: narrow(codes, values.length), values }
}

async function readTags(ctx: ExecContext, field: FieldDef, keys: Keys): Promise<TagsColumn | null> {
  const tags = field.tags!
  const dictionary = new Dictionary<string>()
  const perRow = new Uint32Array(keys.count + 1)
  const groups: { code: number; at: Int32Array }[] = []
  await groupsOf(ctx, tags.table, tags.valueColumn, tags.ownerColumn, (raw, owners) => {
    const code = dictionary.code(String(raw))
    if (dictionary.overflow) return false
    // Link rows of owners that are not records are left out, as a join from the records leaves them.
    const at = Int32Array.from(owners, (id) => keys.position(Number(id)))
    for (const p of at) if (p >= 0) perRow[p + 1]!++
    groups.push({ code, at })
    return true
  })
  if (dictionary.overflow) return null
  const { values, remap } = dictionary.sorted()
  const offsets = perRow
  for (let i = 1; i < offsets.length; i++) offsets[i]! += offsets[i - 1]!
  const fill = offsets.slice(0, keys.count)
  const codes = new Uint32Array(offsets[keys.count]!)
  for (const { code, at } of groups) {
    const final = remap[code]! - 1
    for (const p of at) if (p >= 0) codes[fill[p]!++] = final
  }
  return { kind: 'tags', offsets, codes: narrow(codes, values.length), values }
}

/** A read that saw the data change under it: its columns are dropped and the facets counted in SQL. */
class Changed extends Error {}

/**
 * The fields read before a connection takes calls (`readFacetColumns` from `Pipeline.backgroundReads`)
 * and again at every data version, besides those requests asked for since. Few, because every
 * connection (each worker) holds its own: at 1,000,000 companies these take about 18 MB each,
 * and adding fundings' `series` and `country` would take about 15 MB more.
 */
export const PRELOADED_FACET_FIELDS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  companies: Object.freeze(['stage', 'country', 'industries']),
})

/** What one connection holds and wants held. */
interface Connection {
  store?: Store
  /** Per dataset, the fields to hold at every data version: the preloaded ones and those requests needed. */
  readonly wanted: Map<string, Set<string>>
  /**
   * Per dataset, the fields found to have too many values to hold: never wanted again on this
   * connection, so that a request asking for one does not have it read anew at every data version.
   */
  readonly neverHold: Map<string, Set<string>>
  /** Column statements run on this connection (ids and fields), for tests and benchmarks. */
  reads: number
}

const connections = new WeakMap<Kysely<any>, Connection>()

function connectionOf(db: Kysely<any>): Connection {
  let conn = connections.get(db)
  if (!conn) {
    const wanted = new Map(Object.entries(PRELOADED_FACET_FIELDS).map(([dataset, fields]) => [dataset, new Set(fields)]))
    connections.set(db, (conn = { wanted, neverHold: new Map(), reads: 0 }))
  }
  return conn
}

/** Forgets the columns kept for `db` (benchmarks time the first read this way); the fields wanted stay. */
export function forgetFacetColumns(db: Kysely<any>): void {
  const conn = connections.get(db)
  if (conn) conn.store = undefined
}

/** How many column statements `db` ran, and the fields it holds per dataset at `version`. */
export function facetColumnState(db: Kysely<any>, version: number): { reads: number; held: Record<string, string[]> } {
  const conn = connections.get(db)
  const held: Record<string, string[]> = {}
  if (conn?.store?.version === version) {
    for (const [name, d] of conn.store.datasets) held[name] = [...d.fields].filter(([, c]) => c !== null).map(([f]) => f).sort()
  }
  return { reads: conn?.reads ?? 0, held }
}

function want(conn: Connection, dataset: DatasetDef, fields: Iterable<FieldDef>): void {
  let set = conn.wanted.get(dataset.name)
  if (!set) conn.wanted.set(dataset.name, (set = new Set()))
  const never = conn.neverHold.get(dataset.name)
  for (const f of fields) if (!never?.has(f.name)) set.add(f.name)
}

/** The held columns of `fields` at `version`: undefined when one is not read yet, null when one cannot be held. */
function heldColumns(conn: Connection, version: number, dataset: DatasetDef, fields: Iterable<FieldDef>): { keys: Keys; columns: Map<string, Column> } | null | undefined {
  if (conn.store?.version !== version) return undefined
  const held = conn.store.datasets.get(dataset.name)
  if (!held) return undefined
  const columns = new Map<string, Column>()
  let complete = true
  for (const field of fields) {
    const column = held.fields.get(field.name)
    if (column === undefined) return undefined
    if (column === null) complete = false
    else columns.set(field.name, column)
  }
  return complete ? { keys: held.keys, columns } : null
}

/** The next read wanted at `version` and not done: a dataset's keys (no field) or one field's column. */
function nextRead(conn: Connection, version: number): { dataset: DatasetDef; field?: FieldDef } | undefined {
  for (const [name, fields] of conn.wanted) {
    const dataset = resolveDataset(name)
    if (!dataset) continue
    const held = conn.store?.version === version ? conn.store.datasets.get(name) : undefined
    if (!held) return { dataset }
    for (const f of fields) {
      const field = getField(dataset, f)
      if (field && !held.fields.has(field.name)) return { dataset, field }
    }
  }
  return undefined
}

/** Whether a read at `version` would read anything. */
export function facetColumnsMissing(db: Kysely<any>, version: number): boolean {
  return nextRead(connectionOf(db), version) !== undefined
}

/**
 * Reads the columns wanted on `ctx.db` at `ctx.dataVersion` and not held yet, one statement at a
 * time with `pause` before each: the pipeline reads in the background and passes a turn of the
 * event loop, so that a request on the same connection waits for one statement at most. Each
 * column is kept once the data version is seen unchanged after it was read; a change ends the
 * read (the next version's request starts another). Fields asked for while it reads are read too.
 */
export async function readFacetColumns(ctx: ExecContext, pause: () => Promise<void> = async () => {}): Promise<void> {
  const conn = connectionOf(ctx.db)
  for (;;) {
    const next = nextRead(conn, ctx.dataVersion)
    if (!next) return
    await pause()
    // Another read on the connection (another pipeline) may have done it, or dropped the store, meanwhile.
    const again = nextRead(conn, ctx.dataVersion)
    if (again?.dataset !== next.dataset || again.field !== next.field) continue
    if (conn.store?.version !== ctx.dataVersion) conn.store = { version: ctx.dataVersion, datasets: new Map() }
    const store = conn.store
    const { dataset, field } = next
    let keys: Keys | undefined
    let column: Column | null | undefined
    try {
      conn.reads++
      if (!field) keys = keysOf(await readIds(ctx, dataset))
      else {
        const held = store.datasets.get(dataset.name)!
        column = field.tags ? await readTags(ctx, field, held.keys) : await readScalar(ctx, dataset, field, held.keys)
      }
    } catch (error) {
      if (!(error instanceof Changed)) throw error
      if (conn.store === store) conn.store = undefined
      return
    }
    // Read across several statements: kept only when the data version is still the one they were read at.
    const row = await ctx.db.selectFrom(META_TABLE).select('value').where('key', '=', DATA_VERSION_KEY).executeTakeFirst()
    if ((row === undefined ? 0 : Number(row.value)) !== ctx.dataVersion) {
      if (conn.store === store) conn.store = undefined
      return
    }
    if (conn.store !== store) continue
    if (keys) {
      if (!store.datasets.has(dataset.name)) store.datasets.set(dataset.name, { keys, fields: new Map() })
    } else if (field) {
      store.datasets.get(dataset.name)!.fields.set(field.name, column!)
      // A field with too many values to hold is not tried again at later versions, even when asked for.
      if (column === null) {
        conn.wanted.get(dataset.name)?.delete(field.name)
        let never = conn.neverHold.get(dataset.name)
        if (!never) conn.neverHold.set(dataset.name, (never = new Set()))
        never.add(field.name)
      }
    }
  }
}

/** Whether `filter` is evaluated over the held columns (else its records are selected in SQL), as far as its form tells. */
export function evaluatesInMemory(filter: FilterNode, dataset: DatasetDef): boolean {
  return conditionFields(filter, dataset, new Map())
}

/** Collects the fields a filter's conditions name into `out`; false when it holds a node evaluated only in SQL. */
function conditionFields(filter: FilterNode, dataset: DatasetDef, out: Map<string, FieldDef>): boolean {
  switch (filter.kind) {
    case 'MatchAll':
      return true
    case 'And':
    case 'Or':
      return filter.children.every((c) => conditionFields(c, dataset, out))
    case 'Not':
      return conditionFields(filter.child, dataset, out)
    case 'Foreign':
      return false
    case 'Condition': {
      const field = getField(dataset, filter.field)
      // A column is held only when an index (or the link table's) lets it be read grouped without sorting the table.
      if (!field || !(field.tags || (field.column && (field.indexed || field.facet !== undefined))) || !fits(field, filter)) return false
      out.set(field.name, field)
      return true
    }
  }
}

/** Whether every operand of a condition has the type of its field's values (the normal form's), so that comparing them means what the SQL's comparison means. */
function fits(field: FieldDef, node: ConditionNode): boolean {
  const kind = field.type.kind
  const want = kind === 'integer' || kind === 'number' ? 'number' : kind === 'boolean' ? 'boolean' : 'string'
  const one = (v: unknown) => typeof v === want && (want !== 'number' || Number.isFinite(v as number))
  switch (node.operator) {
    case 'is_null':
      return typeof node.value === 'boolean' && !field.tags
    case 'is_empty':
      return typeof node.value === 'boolean' && field.tags !== undefined
    case 'between':
      return !field.tags && one(node.value[0]) && one(node.value[1])
    case 'in':
    case 'nin':
      return node.value.every((v) => (field.tags ? typeof v === 'string' : one(v)))
    case 'has_any':
    case 'has_all':
    case 'has_none':
      return field.tags !== undefined && node.value.every((v) => typeof v === 'string')
    case 'contains':
    case 'starts_with':
    case 'ends_with':
      return typeof node.value === 'string' && !field.tags && want === 'string'
    default:
      return field.tags ? typeof node.value === 'string' && (node.operator === 'eq' || node.operator === 'ne') : one(node.value)
  }
}

/** Whether a scalar condition holds for one non-NULL value. */
function scalarHolds(node: ConditionNode, v: Scalar): boolean {
  const cmp = (x: Scalar) => compareScalars(v, x)
  switch (node.operator) {
    case 'eq': return cmp(node.value) === 0
    case 'ne': return cmp(node.value) !== 0
    case 'gt': return cmp(node.value) > 0
    case 'gte': return cmp(node.value) >= 0
    case 'lt': return cmp(node.value) < 0
    case 'lte': return cmp(node.value) <= 0
    case 'between': return cmp(node.value[0]) >= 0 && cmp(node.value[1]) <= 0
    case 'in': return node.value.some((x) => cmp(x) === 0)
    case 'nin': return !node.value.some((x) => cmp(x) === 0)
    case 'is_null': return node.value === false
    case 'contains': return foldAscii(String(v)).includes(foldAscii(node.value))
    case 'starts_with': return foldAscii(String(v)).startsWith(foldAscii(node.value))
    case 'ends_with': return foldAscii(String(v)).endsWith(foldAscii(node.value))
    default: throw new Error(`execute: ${node.operator} on scalar field ${node.field}`)
  }
}

/** One byte per record: 1 where `filter` holds. */
function evaluate(filter: FilterNode, rows: number, columns: ReadonlyMap<string, Column>): Uint8Array {
  switch (filter.kind) {
    case 'MatchAll':
      return new Uint8Array(rows).fill(1)
    case 'And':
    case 'Or': {
      const [first, ...rest] = filter.children
      if (!first) return new Uint8Array(rows).fill(filter.kind === 'And' ? 1 : 0)
      const mask = evaluate(first, rows, columns)
      for (const child of rest) {
        const other = evaluate(child, rows, columns)
        if (filter.kind === 'And') for (let i = 0; i < rows; i++) mask[i]! &= other[i]!
        else for (let i = 0; i < rows; i++) mask[i]! |= other[i]!
      }
      return mask
    }
    case 'Not': {
      const mask = evaluate(filter.child, rows, columns)
      for (let i = 0; i < rows; i++) mask[i]! ^= 1
      return mask
    }
    case 'Foreign':
      throw new Error('execute: a foreign filter is not evaluated in memory')
    case 'Condition':
      return conditionMask(filter, rows, columns.get(filter.field)!)
  }
}

function conditionMask(node: ConditionNode, rows: number, column: Column): Uint8Array {
  const mask = new Uint8Array(rows)
  if (column.kind === 'scalar') {
    // Decided once per distinct value; NULL holds only for `is_null: true` and the complements.
    const holds = new Uint8Array(column.values.length + 1)
    holds[0] = (node.operator === 'is_null' && node.value === true) || node.operator === 'ne' || node.operator === 'nin' ? 1 : 0
    column.values.forEach((v, i) => { holds[i + 1] = scalarHolds(node, v) ? 1 : 0 })
    const { codes } = column
    for (let i = 0; i < rows; i++) mask[i] = holds[codes[i]!]!
    return mask
  }
  const { offsets, codes, values } = column
  if (node.operator === 'is_empty') {
    for (let i = 0; i < rows; i++) mask[i] = (offsets[i] === offsets[i + 1]) === node.value ? 1 : 0
    return mask
  }
  // Tag values match in any case of their ASCII letters: the operands folded, each value folded once.
  const wanted = (node.operator === 'eq' || node.operator === 'ne' ? [node.value] : node.value as readonly Scalar[]).map((x) => foldAscii(String(x)))
  const distinct = [...new Set(wanted)]
  const index = new Map(distinct.map((w, i) => [w, i]))
  const which = new Int32Array(values.length).fill(-1)
  values.forEach((v, i) => { which[i] = index.get(foldAscii(v)) ?? -1 })
  const all = node.operator === 'has_all'
  const negated = node.operator === 'ne' || node.operator === 'nin' || node.operator === 'has_none'
  const seen = new Uint8Array(distinct.length)
  for (let i = 0; i < rows; i++) {
    let found = 0
    if (all) seen.fill(0)
    for (let j = offsets[i]!; j < offsets[i + 1]!; j++) {
      const w = which[codes[j]!]!
      if (w < 0) continue
      if (!all) {
        found = 1
        break
      }
      if (seen[w] === 0) {
        seen[w] = 1
        found++
      }
    }
    const holds = all ? found === distinct.length : found === 1
    mask[i] = holds !== negated ? 1 : 0
  }
  return mask
}

/**
 * The records a filter evaluated only in SQL selects (through `foreign`, or on a field not held),
 * one byte per record: their keys read in one value (`matchingKeysQuery`), the WHERE the count
 * runs. Undefined when a key is not among the records held (the data changed since).
 */
async function selectedBySql(ctx: ExecContext, dataset: DatasetDef, filter: FilterNode, keys: Keys): Promise<Uint8Array | undefined> {
  const { rows } = await readRows(ctx, matchingKeysQuery(ctx.db, ctx.dialect, { dataset, filter }).compile())
  const raw = rows[0]?.[0]
  const ids = raw === null || raw === undefined ? [] : typeof raw === 'string' ? (JSON.parse(raw) as unknown[]) : (raw as unknown[])
  const mask = new Uint8Array(keys.count)
  for (const id of ids) {
    const at = keys.position(Number(id))
    if (at < 0) return undefined
    mask[at] = 1
  }
  return mask
}

/** Whether facets on `fields` can be counted in memory at all (text, enum, date and tags facets). */
function countable(fields: readonly FieldDef[]): boolean {
  return fields.every((field) => {
    const kind = field.type.kind
    return field.tags !== undefined || kind === 'string' || kind === 'enum' || kind === 'date' || kind === 'datetime'
  })
}

/**
 * The total and the facets of `fields` over the records `filter` selects, counted in memory from
 * the columns held: what a request runs, and it never reads a column. Undefined when a field is not
 * held (then they are counted in SQL); the fields it lacks, and those of the filter's conditions,
 * are wanted from then on, for `readFacetColumns` to read (`facetColumnsMissing` tells whether
 * there is any to read). A filter whose columns are not held selects its records in SQL.
 */
export async function facetsHeld(ctx: ExecContext, dataset: DatasetDef, filter: FilterNode, fields: readonly FieldDef[]): Promise<InMemoryFacets | undefined> {
  if (!countable(fields)) return undefined
  const conn = connectionOf(ctx.db)
  const needed = new Map<string, FieldDef>()
  const evaluable = conditionFields(filter, dataset, needed)
  want(conn, dataset, evaluable ? [...fields, ...needed.values()] : fields)
  const held = heldColumns(conn, ctx.dataVersion, dataset, fields)
  if (!held) return undefined
  return countOver(ctx, dataset, filter, fields, held, evaluable ? heldColumns(conn, ctx.dataVersion, dataset, needed.values()) : null)
}

/**
 * `facetsHeld` after reading the columns it needs that are not held (tests compare it with the
 * reference evaluator this way); undefined also when the data changed while they were read.
 */
export async function facetsInMemory(ctx: ExecContext, dataset: DatasetDef, filter: FilterNode, fields: readonly FieldDef[]): Promise<InMemoryFacets | undefined> {
  if (!countable(fields)) return undefined
  const needed = new Map<string, FieldDef>()
  want(connectionOf(ctx.db), dataset, conditionFields(filter, dataset, needed) ? [...fields, ...needed.values()] : fields)
  await readFacetColumns(ctx)
  return facetsHeld(ctx, dataset, filter, fields)
}

async function countOver(
  ctx: ExecContext, dataset: DatasetDef, filter: FilterNode, fields: readonly FieldDef[],
  held: { keys: Keys; columns: Map<string, Column> }, filterColumns: { columns: Map<string, Column> } | null | undefined,
): Promise<InMemoryFacets | undefined> {
  const rows = held.keys.count
  // The filter over held columns when they are; else (not read yet, or one has too many values to hold) selected in SQL.
  const mask = filterColumns ? evaluate(filter, rows, filterColumns.columns) : await selectedBySql(ctx, dataset, filter, held.keys)
  if (!mask) return undefined
  let total = 0
  for (let i = 0; i < rows; i++) total += mask[i]!
  const groups = new Map<string, CountedGroups>()
  for (const field of fields) {
    const column = held.columns.get(field.name)!
    const counts = new Float64Array(column.values.length + 1)
    let missing = 0
    if (column.kind === 'scalar') {
      const { codes } = column
      for (let i = 0; i < rows; i++) if (mask[i] === 1) counts[codes[i]!]!++
      missing = counts[0]!
    } else {
      const { offsets, codes } = column
      for (let i = 0; i < rows; i++) {
        if (mask[i] !== 1) continue
        const from = offsets[i]!
        const to = offsets[i + 1]!
        if (from === to) missing++
        for (let j = from; j < to; j++) counts[codes[j]!]!++
      }
    }
    const byValue = new Map<string, number>()
    const offset = column.kind === 'scalar' ? 1 : 0
    column.values.forEach((v, i) => {
      const count = counts[i + offset]!
      if (count === 0) return
      // A year facet groups a date's first four characters, as `substr(column, 1, 4)` does.
      const value = field.facet === 'year' ? [...String(v)].slice(0, 4).join('') : String(v)
      byValue.set(value, (byValue.get(value) ?? 0) + count)
    })
    groups.set(field.name, { counts: byValue, missing })
  }
  return { total, groups }
}

/**
 * @module `foreign`: records related, along the catalog's relation, to records of another dataset
 * that match an inner filter. Two SQL forms select the same records:
 *
 * - a correlated probe, run once per outer row, which stops at the first related match:
 *   - `any`:  EXISTS(related AND P)
 *   - `none`: NOT EXISTS(related AND P)
 *   - `all`:  EXISTS(related) AND NOT EXISTS(related AND NOT P);
 * - a set, computed once (an uncorrelated subquery; through `planQuery` a MATERIALIZED common
 *   table expression of the statement, `plan.ts`), then probed by key or driven from:
 *   - `any`:  key IN (keys related to a record matching P)          (semi-join)
 *   - `none`: NOT (key IN (...)), null-safe                          (anti-join)
 *   - `all`:  key IN (keys with any related record) AND NOT (key IN (keys related to a record
 *     matching NOT P)).
 *
 * `all` requires at least one related record. The textbook "for all" (NOT EXISTS(related AND NOT
 * P) alone) is vacuously true for a record with nothing related, so `all` with any P would match
 * every investor without a portfolio: an accidental match-all. `NOT P` is the null-safe negation,
 * so a related record whose field is NULL counts as not matching.
 *
 * Which form (`formOf`), bottom-up, so that cost adds up instead of multiplying:
 * - A `foreign` inside another `foreign` is always a set. As correlated probes, a chain
 *   companies -> investors -> companies -> ... whose innermost filter matches nothing multiplied
 *   the work by the fan-out at every level (5,000 companies: 3 levels 0.87 s, 4 levels 6.9 s, 5
 *   levels over 2 minutes); as sets each level is computed once from the one below, and a level
 *   that is empty or small drives the next from its few keys, and the probe above the chain
 *   skips the scan when the set below it is empty (`emptinessGuard`).
 *   The price is paid when every level is broad: each is then one pass over the relation's rows
 *   into a temporary index, where probes stopped at the first match (1,000,000 companies, a
 *   5-level chain that every company with an investor meets: 9.7 s as probes, 11 s as sets).
 * - At the top level, `any` pinned by an identifying field (`eq`/`in` on a primary key, a slug or
 *   a domain, see `FieldDef.identifying`) is a semi-join: the related records are a handful and
 *   SQLite drives the query from them. On 1,000,000 companies, counting the companies of each of
 *   the five largest portfolios took 1.1-1.6 s as EXISTS and 10-21 ms as IN.
 * - Any other top-level `foreign` is a correlated probe, which stops at the first related match,
 *   unless its inner filter is wide or the filter has many top-level `foreign`s
 *   (`check/foreign-plan.ts`, `mayProbe`): a wide filter is tested once per related record by a
 *   set, but for every related row of every record by a probe (an `or` of 249 investor names
 *   inside one `foreign`: 55 s as one EXISTS on 1,000,000 companies, 0.2 ms as a set). A lone
 *   top-level `foreign` stays a probe because a broad set costs more than probing: on 1,000,000
 *   companies, companies with an investor of portfolio_size >= 0 took 4.3 s as EXISTS and 10.4 s
 *   as a set, investors with a USA company 0.33 s and 1.6 s (a selective one, such as one
 *   investor's name, would have been faster as a set: 3 s against under 1 ms).
 *
 * The forms select the same rows: `x IN (...)` is NULL only when `x` is NULL (a funding without a
 * company); such a predicate is marked three-valued, so negation stays null-safe.
 */
import { sql, type Expression, type SelectQueryBuilder, type SqlBool } from 'kysely'
import type { FilterNode, ForeignNode } from '../ast/nodes.js'
import type { DatasetDef, FieldDef, RelationDef } from '../catalog/define.js'
import { findRelation, primaryKeyColumn, resolveDataset } from '../catalog/index.js'
import { mayProbe, pinsByIdentifyingField } from '../check/foreign-plan.js'
import { allOf, compiled, eb, negate, TRUE, type Compiled } from './compiled.js'
import { columnRef, primaryKeyRef, probedRowByRow, ROOT_ALIAS, type CompileContext, type Scope } from './scope.js'

export type CompileInner = (node: FilterNode, scope: Scope, ctx: CompileContext) => Compiled

type Form = 'exists' | 'set' | 'pinned'

/** The related rows of `target` for the row in `outer`, as a subquery with the filter applied. */
function relatedRows(outer: Scope, inner: Scope, relation: RelationDef, where: Compiled): SelectQueryBuilder<any, any, any> {
  const target = inner.dataset
  let query: SelectQueryBuilder<any, any, any>
  if (relation.kind === 'direct') {
    query = eb
      .selectFrom(`${target.table} as ${inner.alias}`)
      .where(sql<SqlBool>`${sql.ref(`${inner.alias}.${relation.toColumn}`)} = ${columnRef(outer, relation.fromColumn)}`)
  } else {
    const link = linkAlias(inner)
    query = eb.selectFrom(`${relation.table} as ${link}`)
    // A filter that reads nothing of the target but its key (tags, a nested foreign, match-all)
    // is answered from the link rows: counting the spec's investors example on 100,000 companies
    // took 80 ms with the join to every portfolio company's row and 40 ms without.
    if (!inner.viaLink || inner.viaLink.columnsRead > 0) {
      query = query.innerJoin(`${target.table} as ${inner.alias}`, `${inner.alias}.${primaryKeyColumn(target)}`, `${link}.${relation.toKey}`)
    }
    query = query.where(sql<SqlBool>`${sql.ref(`${link}.${relation.fromKey}`)} = ${primaryKeyRef(outer)}`)
  }
  query = query.select(sql<number>`1`.as('one'))
  return where === TRUE ? query : query.where(where.expr)
}

const linkAlias = (inner: Scope) => `l${inner.alias.slice(1)}`

/** Whether `column` of `dataset` can hold NULL: the primary key never does. */
function nullableColumn(dataset: DatasetDef, column: string): boolean {
  if (column === primaryKeyColumn(dataset)) return false
  const field = (Object.values(dataset.fields) as FieldDef[]).find((f) => f.column === column)
  return field?.nullable !== false
}

/**
 * The keys of the outer dataset that have a related record matching `where`, uncorrelated, and the
 * outer column they are compared with: the set form of `foreign`.
 */
function relatedKeys(outer: Scope, inner: Scope, relation: RelationDef, where: Compiled): { outerKey: Expression<unknown>; keys: SelectQueryBuilder<any, any, any>; twoValued: boolean } {
  const target = inner.dataset
  if (relation.kind === 'direct') {
    const key = sql.ref(`${inner.alias}.${relation.toColumn}`)
    let keys = eb.selectFrom(`${target.table} as ${inner.alias}`).select(key.as('k'))
    // A NULL in the set would make `x IN (...)` NULL instead of false for every x not in it.
    if (nullableColumn(target, relation.toColumn)) keys = keys.where(sql<SqlBool>`${key} is not null`)
    return {
      outerKey: columnRef(outer, relation.fromColumn),
      keys: where === TRUE ? keys : keys.where(where.expr),
      // The outer column may be NULL (a funding without a company id): then three-valued.
      twoValued: !nullableColumn(outer.dataset, relation.fromColumn),
    }
  }
  const link = linkAlias(inner)
  let keys = eb.selectFrom(`${relation.table} as ${link}`)
  if (!inner.viaLink || inner.viaLink.columnsRead > 0) {
    keys = keys.innerJoin(`${target.table} as ${inner.alias}`, `${inner.alias}.${primaryKeyColumn(target)}`, `${link}.${relation.toKey}`)
  }
  const selected = keys.select(sql.ref(`${link}.${relation.fromKey}`).as('k'))
  // Link keys and primary keys are NOT NULL: two-valued.
  return { outerKey: primaryKeyRef(outer), keys: where === TRUE ? selected : selected.where(where.expr), twoValued: true }
}

/**
 * For `any` over a link relation: the keys of the outer dataset read from the link table alone
 * (each once per related match, so duplicates), and the link column they come from. A count of
 * the distinct keys equals the count of outer records only while every link row names an existing
 * outer record (`store/owner-integrity.ts`), which the caller must know (`compile/owner-count.ts`).
 */
export function linkOwnerKeys(node: ForeignNode, outer: Scope, ctx: CompileContext, inner: CompileInner): { table: string; column: string; keys: SelectQueryBuilder<any, any, any>; target: DatasetDef; joinsTarget: boolean } | undefined {
  const target = resolveDataset(node.dataset)
  const relation = target && findRelation(outer.dataset.name, target.name)
  if (!target || !relation || relation.kind !== 'link' || node.match !== 'any') return undefined
  const n = ctx.nextAlias()
  const scope: Scope = { dataset: target, alias: `t${n}`, viaLink: { keyColumn: `l${n}.${relation.toKey}`, columnsRead: 0 }, correlated: false }
  const p = inner(node.filter, scope, ctx)
  const { keys } = relatedKeys(outer, scope, relation, p)
  return { table: relation.table, column: relation.fromKey, keys, target, joinsTarget: scope.viaLink!.columnsRead > 0 }
}

/** Which SQL form a `foreign` gets (see the module comment). */
function formOf(node: ForeignNode, target: DatasetDef, outer: Scope, ctx: CompileContext): Form {
  if (node.match === 'any' && pinsByIdentifyingField(node.filter, target)) return 'pinned'
  if (ctx.preferSets) return 'set'
  return outer.alias === ROOT_ALIAS && mayProbe(node, target, ctx.rootForeigns) ? 'exists' : 'set'
}

export function compileForeign(node: ForeignNode, outer: Scope, ctx: CompileContext, inner: CompileInner): Compiled {
  const target = resolveDataset(node.dataset)
  if (!target) throw new Error(`compile: unknown dataset ${node.dataset} (the checker should have rejected it)`)
  const relation = findRelation(outer.dataset.name, target.name)
  if (!relation) throw new Error(`compile: no relation from ${outer.dataset.name} to ${target.name} (the checker should have rejected it)`)
  const form = formOf(node, target, outer, ctx)
  const n = ctx.nextAlias()
  const correlated = form === 'exists'
  const scope: Scope = relation.kind === 'link'
    ? { dataset: target, alias: `t${n}`, viaLink: { keyColumn: `l${n}.${relation.toKey}`, columnsRead: 0 }, correlated }
    : { dataset: target, alias: `t${n}`, correlated }
  const p = inner(node.filter, scope, ctx)

  if (form === 'exists') {
    const exists = (where: Compiled) => eb.exists(relatedRows(outer, scope, relation, where))
    const guard = emptinessGuard(node, ctx)
    switch (node.match) {
      case 'any':
        return allOf([...guard.map((set) => compiled(sql<SqlBool>`exists (select 1 from ${sql.table(set)})`, true)), compiled(exists(p), true)])
      case 'none':
        return guard.length > 0
          ? compiled(sql<SqlBool>`(${sql.join(guard.map((set) => sql`not exists (select 1 from ${sql.table(set)})`), sql` or `)} or not ${exists(p)})`, true)
          : compiled(eb.not(exists(p)), true)
      case 'all':
        return allOf([
          ...guard.map((set) => compiled(sql<SqlBool>`exists (select 1 from ${sql.table(set)})`, true)),
          compiled(exists(TRUE), true),
          compiled(eb.not(exists(negate(p))), true),
        ])
    }
  }

  /** `key IN (keys)`, inline or as a lookup in a hoisted set; `name` names the hoisted set. */
  const member = (where: Compiled, name: string): Compiled => {
    const { outerKey, keys, twoValued } = relatedKeys(outer, scope, relation, where)
    // A pinned set is a handful of keys: driving from it is cheap anywhere. Any other set, probed
    // row by row, must only filter (see `SqlDialect.correlatedKey`).
    const key = form === 'set' && probedRowByRow(outer, ctx) ? ctx.dialect.correlatedKey(outerKey) : outerKey
    let set = keys
    if (form === 'set' && ctx.sets) {
      // Distinct: a set of related rows has each key once per link (2.9 million rows for the
      // 628,457 companies with an investor); its readers then index a tenth of it (a 5-level chain
      // that every company meets, counted on 1,000,000 companies: 6.4 s -> 5.8 s).
      ctx.sets.push(Object.freeze({ name, keys: keys.distinct() }))
      set = eb.selectFrom(name).select(sql.ref(`${name}.k`).as('k'))
    }
    // Kysely parenthesises an embedded subquery itself; a second pair would make it a one-element list.
    const complement = ctx.dialect.notInKeys?.(key, set, `n${scope.alias.slice(1)}`)
    return compiled(sql<SqlBool>`${key} in ${set}`, twoValued, complement)
  }
  const name = `s${n}`
  switch (node.match) {
    case 'any':
      if (form === 'set') ctx.setNames?.set(node, name)
      return member(p, name)
    case 'none':
      return negate(member(p, name))
    case 'all':
      return allOf([member(TRUE, `r${n}`), negate(member(negate(p), name))])
  }
}

/**
 * The hoisted sets that a top-level probe's inner filter needs a key in: a nested `any` as the
 * filter itself or as one of its conjuncts (a chain, `{foreign: {..., filter: {foreign: ...}}}`).
 * When one of them is empty no related row can match, so the probe is decided without visiting a
 * single record: `exists (select 1 from sN)` does not depend on the row, and SQLite and
 * PostgreSQL compute it once, before the scan, and skip the scan when it is false. A chain whose
 * innermost condition matches nothing is then answered in milliseconds on 1,000,000 companies
 * (23 ms against 1.6 s probing every company), for a few percent more when it matches (10.3 s
 * against 9.6 s: the sets are written once and read twice).
 */
function emptinessGuard(node: ForeignNode, ctx: CompileContext): string[] {
  if (!ctx.setNames) return []
  const conjuncts = node.filter.kind === 'And' ? node.filter.children : [node.filter]
  return conjuncts.flatMap((c) => {
    const name = c.kind === 'Foreign' && c.match === 'any' ? ctx.setNames!.get(c) : undefined
    return name ? [name] : []
  })
}

// Where steer.ts and older callers look for it; the plan decisions live in check/foreign-plan.ts.
export { pinsByIdentifyingField, rootForeignCount } from '../check/foreign-plan.js'

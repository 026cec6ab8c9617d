/**
 * @module One compile rule per operator, in a table typed over every `OperatorName`, so a new
 * operator in the catalog does not compile until it has SQL here.
 *
 * The checker's normal form has no `ne`, `nin` or `has_none` (they arrive as `Not(eq)`, `Not(in)`,
 * `Not(has_any)`), but the table still defines them, as the exact complement of their positive
 * operator, so the compiler is total over the AST and any front-end can feed it.
 */
import { sql, type Expression, type SqlBool } from 'kysely'
import type { FieldDef } from '../catalog/define.js'
import { getField } from '../catalog/index.js'
import type { OperatorName } from '../catalog/operators.js'
import type { ConditionNode, ConditionOf, Scalar } from '../ast/nodes.js'
import { compiled, eb, negate, type Compiled } from './compiled.js'
import type { ListElementKind } from './dialect.js'
import { fieldColumn, type CompileContext, type Scope } from './scope.js'
import { hasAll, hasAny, isEmpty } from './tags.js'
import { LIKE_ESCAPE, likePattern, type TextOperator } from './text.js'
import { bindable, valueIn } from './values.js'

interface Target {
  readonly scope: Scope
  readonly field: FieldDef
  readonly ctx: CompileContext
}

type Rule<Op extends OperatorName> = (node: ConditionOf<Op>, target: Target) => Compiled

const isTags = (t: Target) => t.field.type.kind === 'tags'
const column = (t: Target): Expression<unknown> => fieldColumn(t.scope, t.field, t.ctx)
const kindOf = (t: Target): ListElementKind => t.field.type.kind

/** A comparison of the column with one bound value; NULL exactly when the column is NULL. */
function compare(t: Target, op: '=' | '>' | '>=' | '<' | '<=', value: Scalar): Compiled {
  if (value === null) throw new Error(`compile: null operand for ${op} on ${t.field.name} (normal form forbids it)`)
  return compiled(eb(column(t), op, bindable(value)), !t.field.nullable)
}

function text<Op extends TextOperator>(op: Op): Rule<Op> {
  return (node: { readonly value: string }, t) =>
    compiled(
      sql<SqlBool>`${t.ctx.dialect.foldCase(column(t))} like ${likePattern(op, node.value)} escape ${sql.lit(LIKE_ESCAPE)}`,
      !t.field.nullable,
    )
}

const RULES: { readonly [Op in OperatorName]: Rule<Op> } = {
  eq: (n, t) => (isTags(t) ? hasAny(t.scope, t.field, [n.value], t.ctx) : n.value === null ? isNull(t, true) : compare(t, '=', n.value)),
  ne: (n, t) => negate(RULES.eq(n as unknown as ConditionOf<'eq'>, t)),
  gt: (n, t) => compare(t, '>', n.value),
  gte: (n, t) => compare(t, '>=', n.value),
  lt: (n, t) => compare(t, '<', n.value),
  lte: (n, t) => compare(t, '<=', n.value),
  between: (n, t) =>
    compiled(eb.between(column(t) as Expression<any>, bindable(n.value[0]), bindable(n.value[1])), !t.field.nullable),
  in: (n, t) => (isTags(t) ? hasAny(t.scope, t.field, n.value, t.ctx) : valueIn(column(t), n.value, kindOf(t), t.ctx, t.field.nullable)),
  nin: (n, t) => negate(RULES.in(n as unknown as ConditionOf<'in'>, t)),
  is_null: (n, t) => isNull(t, n.value),
  contains: text('contains'),
  starts_with: text('starts_with'),
  ends_with: text('ends_with'),
  has_any: (n, t) => hasAny(t.scope, t.field, n.value, t.ctx),
  has_all: (n, t) => hasAll(t.scope, t.field, n.value, t.ctx),
  has_none: (n, t) => negate(hasAny(t.scope, t.field, n.value, t.ctx)),
  is_empty: (n, t) => isEmpty(t.scope, t.field, n.value, t.ctx),
}

function isNull(t: Target, wantNull: boolean): Compiled {
  return compiled(eb(column(t), wantNull ? 'is' : 'is not', null), true)
}

export function compileCondition(node: ConditionNode, scope: Scope, ctx: CompileContext): Compiled {
  const field = getField(scope.dataset, node.field)
  if (!field) throw new Error(`compile: unknown field ${scope.dataset.name}.${node.field} (the checker should have rejected it)`)
  const rule = RULES[node.operator] as Rule<OperatorName>
  return rule(node, { scope, field, ctx })
}

/**
 * @module The filter AST: frozen plain objects, created only through `./factory.ts`, one
 * closed `kind` union. Every pass (check, compile, print, evaluate) dispatches with a
 * `Record<FilterNode['kind'], ...>` (see `./visit.ts`), so a new node kind does not compile until
 * every pass handles it.
 *
 * `path` is the JSON Pointer (RFC 6901) of the request element the node came from, e.g.
 * `/filter/and/1/portfolio_size/gte`; issues about the node point there. Nodes that the checker
 * synthesises keep the path of the element they replace.
 */
import type { ForeignMatch, OperatorName } from '../catalog/operators.js'

export type Scalar = string | number | boolean | null

interface NodeBase {
  readonly path: string
}

/** The top-level `{}`: every record. Only valid as the whole filter. */
export interface MatchAllNode extends NodeBase {
  readonly kind: 'MatchAll'
}

export interface AndNode extends NodeBase {
  readonly kind: 'And'
  readonly children: readonly FilterNode[]
}

export interface OrNode extends NodeBase {
  readonly kind: 'Or'
  readonly children: readonly FilterNode[]
}

/** Exact complement: records where the child is false or unknown (null field). */
export interface NotNode extends NodeBase {
  readonly kind: 'Not'
  readonly child: FilterNode
}

/**
 * Records related (through the catalog's relation from the dataset in scope to `dataset`) to
 * records of `dataset` matching `filter`: at least one (`any`), none (`none`), or at least one and
 * all of them (`all`).
 */
export interface ForeignNode extends NodeBase {
  readonly kind: 'Foreign'
  /** The dataset name as written (may be an alias until the checker resolves it). */
  readonly dataset: string
  readonly match: ForeignMatch
  readonly filter: FilterNode
}

type OperandOf<Op extends OperatorName> = Op extends 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte'
  ? Scalar
  : Op extends 'between'
    ? readonly [Scalar, Scalar]
    : Op extends 'in' | 'nin' | 'has_any' | 'has_all' | 'has_none'
      ? readonly Scalar[]
      : Op extends 'is_null' | 'is_empty'
        ? boolean
        : string

/** One operator applied to one field of the dataset in scope. */
export type ConditionNode = {
  [Op in OperatorName]: NodeBase & {
    readonly kind: 'Condition'
    readonly field: string
    readonly operator: Op
    readonly value: OperandOf<Op>
  }
}[OperatorName]

export type ConditionOf<Op extends OperatorName> = Extract<ConditionNode, { operator: Op }>

export type FilterNode = MatchAllNode | AndNode | OrNode | NotNode | ForeignNode | ConditionNode

export type FilterNodeKind = FilterNode['kind']

export interface SortNode extends NodeBase {
  readonly field: string
  readonly direction: 'asc' | 'desc'
}

/** A whole structured query (spec 4.14) after parsing. */
export interface QueryNode {
  readonly dataset: string
  readonly filter: FilterNode
  readonly sort: readonly SortNode[]
  readonly page?: number
  readonly per_page?: number
}

/**
 * @module What a check rule sees (graphql-js's ValidationContext): the query, the limits, the
 * dataset in scope at each node, and `report`, which collects issues up to `limits.maxIssues`
 * (then one `too_many_issues`; attackers can send pathologically invalid requests).
 */
import type { ConditionNode, FilterNode, ForeignNode, QueryNode, SortNode } from '../ast/nodes.js'
import type { DatasetDef, FieldDef } from '../catalog/define.js'
import type { Limits } from './limits.js'
import { issue, type Issue } from '../errors/issue.js'
import { quoteName } from '../errors/format.js'

/** Where a condition sits: the dataset in scope (unknown when its name did not resolve) and its field. */
export interface ConditionScope {
  readonly dataset?: DatasetDef
  readonly field?: FieldDef
  /** Whether the field's type allows the operator (the value rules only judge such conditions). */
  readonly operatorAllowed: boolean
}

/**
 * A rule: called once per check with the context, returns the hooks it needs. Hooks run in
 * document order; the walk does not descend into a scope whose dataset is unknown for field
 * rules (they get `dataset: undefined`).
 */
export interface RuleVisitor {
  /** Before anything else. A rule that sets `context.stop()` prevents the walk (hostile input). */
  readonly query?: (query: QueryNode) => void
  /** The whole filter, before the walk; `dataset` is the dataset it is checked against. */
  readonly filter?: (filter: FilterNode, dataset: DatasetDef | undefined) => void
  readonly node?: (node: FilterNode, dataset: DatasetDef | undefined) => void
  readonly foreign?: (node: ForeignNode, from: DatasetDef | undefined, to: DatasetDef | undefined) => void
  readonly condition?: (node: ConditionNode, scope: ConditionScope) => void
  readonly sort?: (node: SortNode, index: number, dataset: DatasetDef) => void
}

export type Rule = (context: CheckContext) => RuleVisitor

export class CheckContext {
  readonly limits: Limits
  readonly #issues: Issue[] = []
  #capped = false
  #stopped = false

  constructor(limits: Limits) {
    this.limits = limits
  }

  report(fields: Issue): void {
    if (this.#capped) return
    if (this.#issues.length < this.limits.maxIssues) {
      this.#issues.push(issue(fields))
      return
    }
    this.#capped = true
    this.#issues.push(issue({
      code: 'too_many_issues',
      path: '',
      message: `More than ${this.limits.maxIssues} issues; only the first ${this.limits.maxIssues} are reported (limit maxIssues).`,
    }))
  }

  get issues(): readonly Issue[] {
    return this.#issues
  }

  /** True once the cap is reached: the walk stops, nothing more would be reported. */
  get full(): boolean {
    return this.#capped
  }

  /** Stops the walk after the current hook: for input too large or deep to walk safely. */
  stop(): void {
    this.#stopped = true
  }

  get stopped(): boolean {
    return this.#stopped || this.#capped
  }
}

/**
 * The JSON Pointer of the field a condition is on. A condition written as a bare scalar sits at
 * the field's path; one from an operator hash sits one level below (`/filter/employees/gte`).
 */
export function fieldPathOf(node: ConditionNode): string {
  const suffix = `/${node.operator}`
  const field = `/${node.field.replace(/~/g, '~0').replace(/\//g, '~1')}`
  return node.path.endsWith(`${field}${suffix}`) ? node.path.slice(0, -suffix.length) : node.path
}

/** Quoted, for messages: capped and keys redacted (`quoteName`), since the name may be the client's. */
export const q = (name: string): string => quoteName(name)

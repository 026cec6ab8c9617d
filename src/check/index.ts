/**
 * @module The check stage: resolves a parsed query against the catalog and reports every semantic
 * issue at once (capped), then hands compile a `CheckedQuery` in normal form. The rules live one
 * per file in `./rules/`, listed in order in `./rules/index.ts`; this file only walks the tree,
 * keeping track of the dataset in scope, and calls them.
 *
 * Like parse, check never throws for user input: a malformed tree comes back as an issue.
 */
import type { FilterNode, QueryNode } from '../ast/nodes.js'
import type { DatasetDef } from '../catalog/define.js'
import { DATASET_NAMES, getField, resolveDataset } from '../catalog/index.js'
import { OPERATORS } from '../catalog/operators.js'
import { fail, issue, ok, type Result } from '../errors/issue.js'
import { quoteName } from '../errors/format.js'
import type { CheckedQuery, CheckedSort } from './checked.js'
import { CheckContext, type Rule, type RuleVisitor } from './context.js'
import { DEFAULT_LIMITS, type Limits } from './limits.js'
import { normalizeFilter } from './normalize.js'
import { specifiedRules } from './rules/index.js'

export type { CheckedQuery, CheckedSort } from './checked.js'
export { CheckContext, type Rule, type RuleVisitor, type ConditionScope } from './context.js'
export { specifiedRules } from './rules/index.js'
export { DEFAULT_LIMITS, resolveLimits, type Limits } from './limits.js'

/** Checks a whole query and returns it in normal form, or every issue found. */
export function checkQuery(query: QueryNode, limits: Limits = DEFAULT_LIMITS, rules: readonly Rule[] = specifiedRules): Result<CheckedQuery> {
  return guarded(() => {
    const context = new CheckContext(limits)
    const visitors = rules.map((rule) => rule(context))
    for (const v of visitors) v.query?.(query)
    const dataset = resolveDataset(query.dataset)
    checkFilterWith(context, visitors, query.filter, dataset)
    if (dataset && !context.stopped) {
      query.sort.forEach((node, index) => {
        for (const v of visitors) if (!context.stopped) v.sort?.(node, index, dataset)
      })
    }
    if (context.issues.length > 0 || !dataset) return fail(context.issues)
    const sort: CheckedSort[] = query.sort.length > 0
      ? query.sort.map((s) => Object.freeze({ field: getField(dataset, s.field)!, direction: s.direction }))
      : dataset.defaultSort.map((s) => Object.freeze({ field: getField(dataset, s.field)!, direction: s.direction }))
    return ok<CheckedQuery>(Object.freeze({
      dataset,
      filter: normalizeFilter(query.filter, dataset),
      sort: Object.freeze(sort),
      page: query.page ?? 1,
      perPage: query.per_page ?? limits.defaultPerPage,
    }))
  })
}

/**
 * Checks a filter on its own against `dataset` (a definition or a name): for front-ends that
 * build filters without the query envelope (the REST list parameters).
 */
export function checkFilter(filter: FilterNode, dataset: DatasetDef | string, limits: Limits = DEFAULT_LIMITS, rules: readonly Rule[] = specifiedRules): Result<FilterNode> {
  return guarded(() => {
    const resolved = typeof dataset === 'string' ? resolveDataset(dataset) : dataset
    if (!resolved) {
      return fail([issue({ code: 'unknown_dataset', path: '/dataset', message: `Unknown dataset ${quoteName(String(dataset))}; expected ${DATASET_NAMES.join(', ')}.`, allowed: DATASET_NAMES })])
    }
    const context = new CheckContext(limits)
    checkFilterWith(context, rules.map((rule) => rule(context)), filter, resolved)
    return context.issues.length > 0 ? fail(context.issues) : ok(normalizeFilter(filter, resolved))
  })
}

function checkFilterWith(context: CheckContext, visitors: readonly RuleVisitor[], filter: FilterNode, dataset: DatasetDef | undefined): void {
  for (const v of visitors) if (!context.stopped) v.filter?.(filter, dataset)
  if (!context.stopped) walk(context, visitors, filter, dataset)
}

function walk(context: CheckContext, visitors: readonly RuleVisitor[], node: FilterNode, dataset: DatasetDef | undefined): void {
  if (context.stopped) return
  for (const v of visitors) v.node?.(node, dataset)
  switch (node.kind) {
    case 'MatchAll':
      return
    case 'And':
    case 'Or':
      for (const child of node.children) walk(context, visitors, child, dataset)
      return
    case 'Not':
      walk(context, visitors, node.child, dataset)
      return
    case 'Foreign': {
      const to = resolveDataset(node.dataset)
      for (const v of visitors) v.foreign?.(node, dataset, to)
      walk(context, visitors, node.filter, to)
      return
    }
    case 'Condition': {
      const field = dataset ? getField(dataset, node.field) : undefined
      const operatorAllowed = field !== undefined && OPERATORS[node.operator].appliesTo.includes(field.type.kind)
      const scope = { ...(dataset ? { dataset } : {}), ...(field ? { field } : {}), operatorAllowed }
      for (const v of visitors) v.condition?.(node, scope)
    }
  }
}

/** A tree that was not built by the factory (a caller's bug or hostile input) is an issue, not a crash. */
function guarded<T>(run: () => Result<T>): Result<T> {
  try {
    return run()
  } catch (error) {
    return fail([issue({
      code: 'invalid_type',
      path: '',
      message: `The query could not be checked: it is not a well-formed query tree (${error instanceof Error ? error.message : String(error)}).`,
    })])
  }
}

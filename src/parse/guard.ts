/**
 * @module The guard that runs before the schemas: one iterative walk over the raw input that
 * enforces the structural limits (nesting depth, node count, list length, sort clauses;
 * grammar-docs/language.md, "Limits") and rejects what a JSON parser could never have produced (class instances, `undefined`,
 * `__proto__` keys, which zod skips silently). Only after it passes do the recursive zod schemas
 * run, so 10,000 levels of nesting cost one short walk and a `limit_exceeded`, not a stack overflow.
 *
 * It counts nodes exactly as `./to-ast.ts` will build them, so the limit means the same here
 * and in the checker's `request-within-limits` rule.
 */
import { LOGICAL_KEYS } from '../catalog/operators.js'
import type { Limits } from '../check/limits.js'
import { previewValue } from '../errors/format.js'
import { childPath, issue, type Issue } from '../errors/issue.js'

type Task =
  | { readonly kind: 'filter'; readonly value: unknown; readonly path: string; readonly depth: number }
  | { readonly kind: 'operators'; readonly field: string; readonly value: unknown; readonly path: string }

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value) as unknown
  return proto === Object.prototype || proto === null
}

/** An object that is not a plain hash or array (Date, Map, class instance): JSON cannot make one. */
function isExoticObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isPlainObject(value)
}

const LOGICAL = new Set<string>(LOGICAL_KEYS)

function notJson(path: string, value: unknown, what: string): Issue {
  return issue({
    code: 'invalid_type',
    path,
    message: `Expected ${what}; got ${previewValue(value)}, which is not a JSON value.`,
    expected: what,
    got: previewValue(value),
  })
}

/** Guards the envelope's `filter` and `sort`; the rest of the envelope is flat. */
export function guardQuery(input: unknown, limits: Limits): Issue[] {
  if (!isPlainObject(input)) return isExoticObject(input) ? [notJson('', input, 'a query hash')] : []
  const issues: Issue[] = []
  for (const key of Object.keys(input)) {
    if (key === '__proto__') issues.push(protoKey('', 'a query key'))
  }
  const sort = input['sort']
  if (Array.isArray(sort) && sort.length > limits.maxSortClauses) {
    // Refused here, like the filter limits, so a huge sort costs one length check, not a schema run per clause.
    issues.push(issue({
      code: 'limit_exceeded',
      path: '/sort',
      message: `The sort has ${sort.length} clauses; the limit (maxSortClauses) is ${limits.maxSortClauses}.`,
      expected: `at most ${limits.maxSortClauses} clauses`,
      got: `${sort.length} clauses`,
    }))
  } else if (Array.isArray(sort)) {
    sort.forEach((clause, i) => {
      const path = childPath('/sort', i)
      if (isExoticObject(clause)) issues.push(notJson(path, clause, 'a sort clause hash'))
      else if (isPlainObject(clause) && Object.keys(clause).includes('__proto__')) issues.push(protoKey(path, 'a field name'))
    })
  }
  if (input['filter'] !== undefined) issues.push(...guardFilter(input['filter'], '/filter', limits))
  return issues
}

/** Guards a filter hash rooted at `rootPath`. */
export function guardFilter(input: unknown, rootPath: string, limits: Limits): Issue[] {
  const issues: Issue[] = []
  const stack: Task[] = [{ kind: 'filter', value: input, path: rootPath, depth: 1 }]
  let nodes = 0
  let tooDeep = false
  let tooMany = false
  const countNodes = (n: number): void => {
    nodes += n
    if (nodes > limits.maxNodes && !tooMany) {
      tooMany = true
      issues.push(issue({
        code: 'limit_exceeded',
        path: rootPath,
        message: `The filter has more than ${limits.maxNodes} conditions and logical operators; the limit (maxNodes) is ${limits.maxNodes}.`,
        expected: `at most ${limits.maxNodes} nodes`,
        got: `more than ${limits.maxNodes}`,
      }))
    }
  }
  while (stack.length > 0 && !tooMany) {
    const task = stack.pop() as Task
    const { value, path } = task
    if (isExoticObject(value)) {
      issues.push(notJson(path, value, task.kind === 'filter' ? 'a filter hash' : 'a value or an operator hash'))
      continue
    }
    if (!isPlainObject(value)) {
      if (task.kind === 'operators') countNodes(1)
      continue
    }
    const keys = Object.keys(value)
    if (task.kind === 'operators') {
      countNodes(keys.length > 1 ? keys.length + 1 : keys.length)
      for (const op of keys) {
        const operand = value[op]
        const operandPath = childPath(path, op)
        if (operand === undefined) issues.push(notJson(operandPath, operand, 'an operand'))
        else if (Array.isArray(operand) && operand.length > limits.maxListLength) {
          issues.push(issue({
            code: 'limit_exceeded',
            path: operandPath,
            message: `The list of "${op}" on field "${task.field}" has ${operand.length} values; the limit (maxListLength) is ${limits.maxListLength}.`,
            expected: `at most ${limits.maxListLength} values`,
            got: `${operand.length} values`,
          }))
        }
      }
      continue
    }
    if (task.depth > limits.maxDepth) {
      if (!tooDeep) {
        tooDeep = true
        issues.push(issue({
          code: 'limit_exceeded',
          path,
          message: `The filter nests deeper than ${limits.maxDepth} levels of and/or/not/foreign; the limit (maxDepth) is ${limits.maxDepth}.`,
          expected: `at most ${limits.maxDepth} levels`,
          got: `more than ${limits.maxDepth}`,
        }))
      }
      continue
    }
    countNodes(keys.length === 0 ? 1 : keys.length > 1 ? 1 : 0)
    // Children are pushed in reverse so that their issues, too, come out in document order.
    const children: Task[] = []
    for (const key of keys) {
      const child = value[key]
      const childAt = childPath(path, key)
      if (key === '__proto__') {
        issues.push(protoKey(path, 'a field name'))
        continue
      }
      if (child === undefined) {
        issues.push(notJson(childAt, child, LOGICAL.has(key) ? `a value for "${key}"` : 'a value or an operator hash'))
        continue
      }
      if (!LOGICAL.has(key)) {
        children.push({ kind: 'operators', field: key, value: child, path: childAt })
        continue
      }
      countNodes(1)
      const depth = task.depth + 1
      if ((key === 'and' || key === 'or') && Array.isArray(child)) {
        child.forEach((c, i) => children.push({ kind: 'filter', value: c, path: childPath(childAt, i), depth }))
      } else if (key === 'not') {
        children.push({ kind: 'filter', value: child, path: childAt, depth })
      } else if (key === 'foreign' && isPlainObject(child)) {
        if (Object.keys(child).includes('__proto__')) issues.push(protoKey(childAt, 'a key of `foreign`'))
        if (child['filter'] !== undefined) children.push({ kind: 'filter', value: child['filter'], path: childPath(childAt, 'filter'), depth })
      } else if (isExoticObject(child)) {
        issues.push(notJson(childAt, child, `a value for "${key}"`))
      }
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as Task)
  }
  return issues
}

function protoKey(parent: string, what: string): Issue {
  return issue({
    code: parent === '' ? 'unknown_key' : what === 'a field name' ? 'unknown_field' : 'unknown_key',
    path: childPath(parent, '__proto__'),
    message: `"__proto__" is not allowed as ${what}.`,
    expected: what,
    got: '"__proto__"',
  })
}

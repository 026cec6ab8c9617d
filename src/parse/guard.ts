/**
 * @module The guards that run before anything else reads an input.
 *
 * `guardInput` walks any input an engine call or an HTTP body brings, on the caller's thread,
 * before it is copied to a worker thread (a structured clone, which recurses) or walked by
 * recursive code: nesting depth (`maxInputDepth`), the number of values and the characters of
 * strings (`inputBounds`, from `maxBodyBytes`), and what a JSON parser cannot produce. It answers a
 * copy made only of plain objects, arrays and scalars, so what is sent on is exactly what was
 * checked (a getter is read once).
 *
 * `guardQuery` and `guardFilter` run in the pipeline, before the schemas: one iterative walk over the raw input that
 * enforces the structural limits (nesting depth, node count, list length, sort clauses;
 * grammar-docs/language.md, "Limits") and rejects what a JSON parser could never have produced (class instances, `undefined`,
 * `__proto__` keys, which zod skips silently). Only after it passes do the recursive zod schemas
 * run, so 10,000 levels of nesting cost one short walk and a `limit_exceeded`, not a stack overflow.
 *
 * It counts nodes exactly as `./to-ast.ts` will build them, so the limit means the same here
 * and in the checker's `request-within-limits` rule.
 */
import { types } from 'node:util'
import { LOGICAL_KEYS } from '../catalog/operators.js'
import { inputBounds, type Limits } from '../check/limits.js'
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

/** `guardInput`'s answer: a copy of the input that is safe to clone and walk, or why not. */
export type GuardedInput = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly issues: readonly Issue[] }

/**
 * An engine call refused by `guardInput` where the method answers no `Result` (the record lookups,
 * `access`): `issues` say what was wrong, as the Result methods would answer them.
 */
export class InvalidInputError extends Error {
  override readonly name = 'InvalidInputError'
  readonly code = 'INVALID_INPUT'
  constructor(readonly issues: readonly Issue[]) {
    super(`Invalid input: ${issues.map((i) => `${i.path === '' ? '' : `${i.path}: `}${i.message}`).join(' ')}`)
  }

  /** The first issue. */
  get issue(): Issue {
    return this.issues[0] as Issue
  }
}

/** A container being copied: its keys (undefined for an array) and the next one to visit. */
interface Frame {
  readonly source: object
  readonly copy: unknown[] | Record<string, unknown>
  readonly keys: readonly string[] | undefined
  readonly length: number
  readonly path: string
  index: number
}

/**
 * Walks `input` with an explicit stack (no recursion, so no input can overflow it) and answers a
 * copy of it, or its issues: `limit_exceeded` at the first point where the nesting passes
 * `maxInputDepth` or the values or string characters pass what `maxBodyBytes` could encode (the
 * walk stops there), `invalid_type` for each value JSON cannot hold (functions, symbols, bigints,
 * class instances such as Date or Map, proxies, a cycle) and `unknown_key` for a `__proto__` key.
 * `undefined` is kept (an absent optional argument or member; the schemas judge it where it matters).
 * `what` names the input in messages ("The request"); paths are JSON Pointers from `rootPath`.
 */
export function guardInput(input: unknown, limits: Limits, what = 'The input', rootPath = ''): GuardedInput {
  // Most arguments are an id: nothing to walk.
  if (input === null || typeof input === 'number' || typeof input === 'boolean' || input === undefined) return { ok: true, value: input }
  const { maxValues, maxStringChars } = inputBounds(limits)
  const maxDepth = limits.maxInputDepth
  const issues: Issue[] = []
  const stack: Frame[] = []
  const ancestors = new Set<object>()
  let values = 0
  let chars = 0
  let stopped = false

  const exceeded = (path: string, message: string, expected: string, got: string): undefined => {
    stopped = true
    issues.push(issue({ code: 'limit_exceeded', path, message: `${what} ${message}.`, expected, got }))
    return undefined
  }
  const refuse = (found: Issue): undefined => {
    issues.push(found)
    if (issues.length >= limits.maxIssues) stopped = true
    return undefined
  }
  const body = `a body of maxBodyBytes (${limits.maxBodyBytes} bytes)`
  const valuesOver = (path: string): undefined =>
    exceeded(path, `has more than ${maxValues} values (arrays, objects and scalars), more than ${body} can hold; the limit is ${maxValues}`, `at most ${maxValues} values`, `more than ${maxValues}`)
  const countChars = (n: number, path: string): boolean => {
    chars += n
    if (chars <= maxStringChars) return true
    exceeded(path, `has more than ${maxStringChars} characters of strings and keys, more than ${body} can hold; the limit is ${maxStringChars}`, `at most ${maxStringChars} characters`, `more than ${maxStringChars}`)
    return false
  }

  /** A value's copy (a container's is filled in as the walk reaches its children); undefined when refused. */
  const visit = (value: unknown, path: string): unknown => {
    if (++values > maxValues) return valuesOver(path)
    switch (typeof value) {
      case 'string':
        return countChars(value.length, path) ? value : undefined
      case 'number':
      case 'boolean':
      case 'undefined':
        return value
      case 'function':
      case 'symbol':
      case 'bigint':
        return refuse(notJson(path, value, 'JSON data'))
    }
    if (value === null) return null
    const object = value as object
    if (types.isProxy(object)) {
      // A proxy's traps run on every read, and a structured clone refuses it: never read it, not even to preview it.
      return refuse(issue({ code: 'invalid_type', path, message: 'Expected JSON data; got a Proxy, which is not a JSON value.', expected: 'JSON data', got: 'a Proxy' }))
    }
    if (ancestors.has(object)) {
      return refuse(issue({ code: 'invalid_type', path, message: 'Expected JSON data; got a reference to an enclosing object or array (a cycle), which JSON cannot hold.', expected: 'JSON data', got: 'a cycle' }))
    }
    const isArray = Array.isArray(object)
    if (!isArray && !isPlainObject(object)) return refuse(notJson(path, object, 'JSON data'))
    if (stack.length + 1 > maxDepth) {
      return exceeded(path, `nests arrays and objects deeper than ${maxDepth} levels; the limit (maxInputDepth) is ${maxDepth}`, `at most ${maxDepth} levels`, `more than ${maxDepth}`)
    }
    const keys = isArray ? undefined : Object.keys(object)
    const length = keys === undefined ? (object as unknown[]).length : keys.length
    // A length no body could encode is refused before anything is allocated or walked (a sparse `new Array(2 ** 32 - 1)`).
    if (length > maxValues - values) return valuesOver(path)
    const copy: unknown[] | Record<string, unknown> = isArray ? new Array<unknown>(length) : {}
    stack.push({ source: object, copy, keys, length, path, index: 0 })
    ancestors.add(object)
    return copy
  }

  let root: unknown
  try {
    root = visit(input, rootPath)
    while (stack.length > 0 && !stopped) {
      const frame = stack[stack.length - 1] as Frame
      if (frame.index >= frame.length) {
        stack.pop()
        ancestors.delete(frame.source)
        continue
      }
      const at = frame.index++
      const key = frame.keys === undefined ? at : (frame.keys[at] as string)
      const path = childPath(frame.path, key)
      if (typeof key === 'string') {
        if (key === '__proto__') {
          refuse(protoKey(frame.path, 'a key'))
          continue
        }
        if (!countChars(key.length, path)) break
      }
      let child: unknown
      try {
        child = (frame.source as Record<string | number, unknown>)[key]
      } catch {
        refuse(issue({ code: 'invalid_type', path, message: 'Expected JSON data; reading this value failed (a getter threw).', expected: 'JSON data', got: 'a getter that throws' }))
        continue
      }
      const copied = visit(child, path)
      if (frame.keys === undefined) (frame.copy as unknown[])[at] = copied
      else (frame.copy as Record<string, unknown>)[key] = copied
    }
  } catch (error) {
    // Only a hostile object can get here (the walk itself reads nothing else that throws).
    const reason = error instanceof Error ? error.message : 'an error'
    issues.push(issue({ code: 'invalid_type', path: rootPath, message: `${what} could not be read as JSON data (${reason}).`, expected: 'JSON data' }))
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: root }
}

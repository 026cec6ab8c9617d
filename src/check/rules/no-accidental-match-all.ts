/**
 * @module Rule: no accidental match-all. No empty `and`/`or`, no `{}` below the top level, no
 * empty value list, no null inside a list, no empty text. See grammar-docs/language.md,
 * "Empty input".
 *
 * The JSON parser already refuses these shapes; the rule holds the invariant for ASTs built by
 * other front-ends, which would otherwise compile an empty `IN ()` or a vacuous `AND`.
 */
import { OPERATORS } from '../../catalog/operators.js'
import { childPath } from '../../errors/issue.js'
import type { Rule } from '../context.js'

export const noAccidentalMatchAll: Rule = (context) => {
  let root: unknown
  return {
    filter(filter) {
      root = filter
    },
    node(node) {
      if ((node.kind === 'And' || node.kind === 'Or') && node.children.length === 0) {
        const key = node.kind === 'And' ? 'and' : 'or'
        context.report({
          code: 'empty_list',
          path: node.path,
          message: `\`${key}\` needs at least one filter; an empty list would silently match ${key === 'and' ? 'everything' : 'nothing'}.`,
          expected: 'at least one filter',
          got: '[]',
        })
      }
      if (node.kind === 'MatchAll' && node !== root) {
        context.report({
          code: 'empty_filter',
          path: node.path,
          message: 'An empty filter hash {} means "every record" only as the whole filter; here it would match everything by accident.',
          expected: 'a non-empty filter hash',
          got: '{}',
        })
      }
      if (node.kind !== 'Condition') return
      const shape = OPERATORS[node.operator].operand
      if (shape === 'list' && Array.isArray(node.value)) {
        if (node.value.length === 0) {
          context.report({
            code: 'empty_list',
            path: node.path,
            message: `Operator "${node.operator}" on field "${node.field}" needs at least one value; an empty list would silently match ${node.operator === 'in' || node.operator === 'has_any' ? 'nothing' : 'everything'}.`,
            expected: 'a non-empty array of values',
            got: '[]',
          })
        }
        node.value.forEach((v, i) => {
          if (v === null) {
            context.report({
              code: 'invalid_value',
              path: childPath(node.path, i),
              message: `Lists cannot contain null (item ${i} of "${node.operator}" on field "${node.field}"); use {"is_null": true} to match missing values.`,
              expected: 'a string, number or boolean',
              got: 'null',
            })
          }
        })
      }
      if (shape === 'text' && node.value === '') {
        context.report({
          code: 'invalid_value',
          path: node.path,
          message: `Operator "${node.operator}" on field "${node.field}" needs a non-empty text; an empty one would match every value.`,
          expected: 'a non-empty text',
          got: '""',
        })
      }
    },
  }
}

/**
 * @module Rule: sort fields unique. A field appears in `sort` at most once (a second clause on
 * it could never take effect, and with the other direction it contradicts the first). See
 * grammar-docs/language.md, "Sort".
 */
import { childPath } from '../../errors/issue.js'
import { q, type Rule } from '../context.js'

export const sortFieldsUnique: Rule = (context) => {
  const first = new Map<string, string>()
  return {
    sort(node) {
      const earlier = first.get(node.field)
      if (earlier === undefined) {
        first.set(node.field, node.path)
        return
      }
      context.report({
        code: 'invalid_sort',
        path: childPath(node.path, node.field),
        message: `Field ${q(node.field)} appears in the sort more than once (first at ${earlier}).`,
        expected: 'each field at most once',
        got: q(node.field),
      })
    },
  }
}

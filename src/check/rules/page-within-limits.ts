/**
 * @module Rule: page within limits. `page` and `per_page` are positive integers and `per_page`
 * does not exceed `maxPerPage`. See grammar-docs/language.md, "Paging".
 */
import { previewValue } from '../../errors/format.js'
import type { Rule } from '../context.js'

export const pageWithinLimits: Rule = (context) => ({
  query(query) {
    for (const key of ['page', 'per_page'] as const) {
      const value = query[key]
      if (value === undefined) continue
      if (!Number.isSafeInteger(value) || value < 1) {
        context.report({
          code: 'invalid_page',
          path: `/${key}`,
          message: `\`${key}\` takes a positive integer; got ${previewValue(value)}.`,
          expected: 'a positive integer',
          got: previewValue(value),
        })
      } else if (key === 'per_page' && value > context.limits.maxPerPage) {
        context.report({
          code: 'limit_exceeded',
          path: '/per_page',
          message: `\`per_page\` is ${value}; the limit (maxPerPage) is ${context.limits.maxPerPage}.`,
          expected: `at most ${context.limits.maxPerPage}`,
          got: String(value),
        })
      }
    }
  },
})

/**
 * @module Rule: between bounds ordered. `between: [lo, hi]` needs lo <= hi after conversion
 * (`["2024-01-01", "20230101"]` is compared as dates); reversed bounds would silently match
 * nothing. See grammar-docs/language.md, "Operators".
 */
import { previewValue } from '../../errors/format.js'
import { q, type Rule } from '../context.js'
import { compareConverted, convertOperand, type Converted } from '../values.js'

export const betweenBoundsOrdered: Rule = (context) => ({
  condition(node, { field, operatorAllowed }) {
    if (!field || !operatorAllowed || node.operator !== 'between') return
    const converted = convertOperand(node, field)
    if (converted.problems.length > 0) return
    const [lo, hi] = converted.value as [Converted, Converted]
    if (compareConverted(lo, hi) <= 0) return
    context.report({
      code: 'invalid_range',
      path: node.path,
      message: `"between" on field ${q(field.name)} needs lo <= hi; got ${previewValue(node.value)}. Swap the bounds.`,
      expected: '[lo, hi] with lo <= hi',
      got: previewValue(node.value),
    })
  },
})

/**
 * @module Rule: enum values known. A value of an enum field is one of its values or aliases,
 * matched case-insensitively (`"type": "v c"` is an error, not an empty result). See
 * grammar-docs/language.md, "Enums".
 */
import { didYouMean, suggestionList } from '../../errors/did-you-mean.js'
import { previewValue } from '../../errors/format.js'
import { q, type Rule } from '../context.js'
import { convertOperand } from '../values.js'

export const enumValuesKnown: Rule = (context) => ({
  condition(node, { field, operatorAllowed }) {
    if (!field || !operatorAllowed || field.type.kind !== 'enum') return
    const { values, aliases } = field.type
    for (const problem of convertOperand(node, field).problems) {
      if (problem.kind !== 'enum') continue
      const text = String(problem.value)
      const suggestions = suggestionList(text, [...values, ...Object.keys(aliases ?? {})])
        .map((s) => values.find((v) => v === s) ?? s)
      context.report({
        code: 'unknown_enum_value',
        path: problem.path,
        message: `Field ${q(field.name)} has no value ${q(text)}; expected one of: ${values.join(', ')}.${didYouMean(suggestions)}`,
        expected: `one of: ${values.join(', ')}`,
        got: previewValue(problem.value),
        suggestions,
        allowed: values,
      })
    }
  },
})
